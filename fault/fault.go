// Package fault is the one table of fault kinds: for each kind its number,
// its names (in code, in scenario files, in histories), its target, the
// length field it takes, the facts the checkers and the reports read, its
// words, the fault classes that plan it, and why it breaks a plain TTL
// lock's assumptions. It imports nothing of locksim.
//
// Only behaviour lives elsewhere, each layer in one table keyed by Kind:
// how the simulator applies a kind (sim/faultapply.go), how the real-time
// backend applies it or refuses it (realtime/engine/faultkinds.go), and how
// the random generator draws it or why it never does
// (explore/gen/faultkinds.go). Scenario files, the checkers (model) and the
// reports read the facts here and name no kind. fault's
// TestEveryKindComplete fails when a kind lacks any of them.
package fault

// Kind is a fault kind. The numbers are hashed into digests: a new kind
// takes the next number, and no number is ever reused or renumbered.
type Kind uint8

const (
	Pause         Kind = 1  // a client stops for Dur
	Crash         Kind = 2  // a client dies at its next yield
	Respawn       Kind = 3  // a crashed client starts again, fresh (recorded only)
	ClientJump    Kind = 4  // a client's clock jumps by Dur
	NodeJump      Kind = 5  // a node's clock jumps by Dur
	NodeRestart   Kind = 6  // a node loses its data and is down for Dur
	Failover      Kind = 7  // a node's primary is lost, a replica promoted after Dur
	LoseRequest   Kind = 8  // a client's next request is lost; it times out after Dur
	LoseReply     Kind = 9  // a client's next reply is lost; it times out after Dur
	WatchdogPause Kind = 10 // a client's watchdog stops for Dur; the holder works on
)

// Target is what a fault acts on.
type Target uint8

const (
	OnClient Target = iota + 1 // sim.Fault.Proc, sim.Event.Proc; a file's client:
	OnNode                     // sim.Fault.Node, sim.Event.Node; a file's node:
)

// Field is the length field a scenario file gives a kind; the engine's Dur
// is its value.
type Field uint8

const (
	FieldFor          Field = iota + 1 // for:
	FieldRestartAfter                  // restart_after:
	FieldBy                            // by: (may be negative)
)

// Spec is one fault kind: one row of the table.
type Spec struct {
	// Name is the kind's one name in code, tests and docs.
	Name string
	// File is the kind as a scenario file writes it (kind:), "" for a kind
	// a file cannot plan (it is only recorded: a respawn follows a crash's
	// restart_after). Two kinds may share it when the file tells them apart
	// by target: a clock-jump names a client or a node.
	File string
	// History is how histories and reports name the kind (Kind.String);
	// the transcripts and goldens hold these words.
	History string
	Target  Target
	// Field is the length field a file gives it (0 for a recorded kind).
	Field Field

	// Facts the checkers read instead of naming kinds.
	EndsLife  bool // the client's life is over at the event
	Pauses    bool // the client is stopped for Dur
	LosesData bool // the node forgets its keys (unless it persists them) and is down for Dur
	// Facts the reports and the simulator's bookkeeping read.
	Crashes       bool // the client is dead until a respawn (EndsLife too)
	ShiftsClock   bool // the target's clock moves by Dur (negative: backwards)
	Promotes      bool // a replica may be promoted: the event's Value is its lane, 0 for none
	LosesCommand  bool // the client's next request or reply is lost
	StopsWatchdog bool // the client's watchdog alone stops for Dur

	// Mark is what a lane's mark at the event says first (the reports
	// complete it from the event); "" for no mark (a pause draws a bar).
	Mark string
	// Bar is what the timeline's bar for the event says first (model
	// completes it from the event).
	Bar string

	// Classes are the fault classes (scenarios.Vocabulary) under which a
	// command may plan the kind.
	Classes []string
	// BreaksTTL, when set, is why the kind breaks a plain TTL lock's
	// assumptions (a lease on the node's TTL, no fsync, no WAIT) whatever its
	// lengths; "" when it keeps them or counts against the lease (a pause).
	BreaksTTL string
}

// specs is the table, indexed by Kind.
var specs = [...]Spec{
	Pause: {Name: "pause", File: "pause", History: "pause", Target: OnClient, Field: FieldFor,
		Pauses: true, Bar: "pause",
		Classes: []string{"pause", "short-pause", "long-pause"}},
	Crash: {Name: "crash", File: "crash", History: "crash", Target: OnClient, Field: FieldRestartAfter,
		EndsLife: true, Crashes: true, Mark: "crash", Bar: "crash",
		Classes: []string{"crash"}},
	Respawn: {Name: "respawn", History: "restart", Target: OnClient,
		EndsLife: true, Mark: "restart as a fresh process", Bar: "restart"},
	ClientJump: {Name: "client-jump", File: "clock-jump", History: "proc-clock-jump", Target: OnClient, Field: FieldBy,
		ShiftsClock: true, Mark: "clock jumps", Bar: "clock",
		Classes: []string{"jump", "client-jump"}},
	NodeJump: {Name: "node-jump", File: "clock-jump", History: "node-clock-jump", Target: OnNode, Field: FieldBy,
		ShiftsClock: true, Mark: "clock jumps", Bar: "clock",
		Classes:   []string{"jump", "node-jump"},
		BreaksTTL: "a node's clock jump moves the lock's expiry"},
	NodeRestart: {Name: "node-restart", File: "node-restart", History: "node-restart", Target: OnNode, Field: FieldFor,
		LosesData: true, Mark: "restart", Bar: "restart",
		Classes:   []string{"restart"},
		BreaksTTL: "a node restart loses the lock"},
	// A failover is down for Dur and loses what no replica has: the
	// checkers count it as losing data, which makes its next write of the
	// key a new version and its Dur an outage.
	Failover: {Name: "failover", File: "failover", History: "failover", Target: OnNode, Field: FieldFor,
		LosesData: true, Promotes: true, Mark: "failover", Bar: "failover",
		Classes:   []string{"failover"},
		BreaksTTL: "a failover loses what the replica had not received"},
	// For a lost command, Dur is how long the client waits for its reply
	// (0: the network's timeout). What a timeout does to a lock is the
	// lock's own business: no assumption of the TTL is broken.
	LoseRequest: {Name: "lose-request", File: "lose-request", History: "lose-request", Target: OnClient, Field: FieldFor,
		LosesCommand: true, Mark: "its next request is lost", Bar: "its next request is lost",
		Classes: []string{"net"}},
	LoseReply: {Name: "lose-reply", File: "lose-reply", History: "lose-reply", Target: OnClient, Field: FieldFor,
		LosesCommand: true, Mark: "its next reply is lost", Bar: "its next reply is lost",
		Classes: []string{"net"}},
	// Not Pauses: the client itself is not stopped. A lock without a
	// watchdog is not touched.
	WatchdogPause: {Name: "watchdog-pause", File: "watchdog-pause", History: "watchdog-pause", Target: OnClient, Field: FieldFor,
		StopsWatchdog: true, Mark: "its watchdog stops", Bar: "watchdog paused",
		Classes: []string{"watchdog-pause"}},
}

// Kinds lists every kind in number order.
func Kinds() []Kind {
	var out []Kind
	for k := range specs {
		if specs[k].Name != "" {
			out = append(out, Kind(k))
		}
	}
	return out
}

// Spec is the kind's row; the zero Spec for an unknown kind.
func (k Kind) Spec() Spec {
	if int(k) < len(specs) {
		return specs[k]
	}
	return Spec{}
}

func (k Kind) spec() *Spec {
	if int(k) < len(specs) {
		return &specs[k]
	}
	return &Spec{}
}

// String is the kind as histories name it; "unknown" for an unknown kind.
func (k Kind) String() string {
	if s := k.spec(); s.History != "" {
		return s.History
	}
	return "unknown"
}

// Name is the kind's one name in code and docs; "" for an unknown kind.
func (k Kind) Name() string { return k.spec().Name }

// File is the kind as a scenario file writes it; "" when a file cannot
// plan it.
func (k Kind) File() string { return k.spec().File }

// Target is what the fault acts on; 0 for an unknown kind.
func (k Kind) Target() Target { return k.spec().Target }

// Field is the length field a file gives the kind; 0 for none.
func (k Kind) Field() Field { return k.spec().Field }

// Planned reports whether a run's plan may hold the kind (a respawn is
// only recorded, after a crash).
func (k Kind) Planned() bool { return k.spec().File != "" }

// Signed reports whether the kind's Dur may be negative (a clock jumps
// backwards).
func (k Kind) Signed() bool { return k.spec().Field == FieldBy }

// EndsLife reports whether the client's life is over at the fault.
func (k Kind) EndsLife() bool { return k.spec().EndsLife }

// Pauses reports whether the client is stopped for the event's Dur.
func (k Kind) Pauses() bool { return k.spec().Pauses }

// LosesData reports whether the node forgets its keys and is down for the
// event's Dur: every key, unless the node persists them, when the event's
// Key is the watched key as the restart left it.
func (k Kind) LosesData() bool { return k.spec().LosesData }

// Crashes reports whether the client is dead from the event until a
// respawn starts it again (a respawn ends a life too, but starts the next).
func (k Kind) Crashes() bool { return k.spec().Crashes }

// ShiftsClock reports whether the target's clock moves by the event's Dur
// (negative: backwards).
func (k Kind) ShiftsClock() bool { return k.spec().ShiftsClock }

// Promotes reports whether the fault may promote one of the node's
// replicas: the event's Value is the promoted replica's lane, 0 when the
// node had none (an outage only, the key stays).
func (k Kind) Promotes() bool { return k.spec().Promotes }

// LosesCommand reports whether the client's next request or reply is
// lost; the client waits the event's Dur (0: the network's timeout).
func (k Kind) LosesCommand() bool { return k.spec().LosesCommand }

// StopsWatchdog reports whether the client's watchdog alone stops for the
// event's Dur while the holder works on.
func (k Kind) StopsWatchdog() bool { return k.spec().StopsWatchdog }

// Mark is the words a drawing of the event starts with ("crash", "clock
// jumps"), which the reports complete from the event; "" when the kind
// draws no mark (a pause draws a bar instead).
func (k Kind) Mark() string { return k.spec().Mark }

// Bar is the words the timeline's bar for the event starts with.
func (k Kind) Bar() string { return k.spec().Bar }

// Classes are the fault classes that plan the kind.
func (k Kind) Classes() []string { return k.spec().Classes }

// BreaksTTL is why the kind breaks a plain TTL lock's assumptions whatever
// its lengths; "" when it does not.
func (k Kind) BreaksTTL() string { return k.spec().BreaksTTL }

// OfFile is the kind a scenario file's kind: names, aimed at a node or at a
// client; 0 when there is none.
func OfFile(file string, onNode bool) Kind {
	want := OnClient
	if onNode {
		want = OnNode
	}
	for k := range specs {
		if s := &specs[k]; s.File == file && file != "" && s.Target == want {
			return Kind(k)
		}
	}
	return 0
}

// Files lists the kinds a scenario file may write, in number order, each
// once.
func Files() []string {
	var out []string
	for _, k := range Kinds() {
		f := k.File()
		if f != "" && (len(out) == 0 || !contains(out, f)) {
			out = append(out, f)
		}
	}
	return out
}

// OfClass lists the kinds the class plans, in number order.
func OfClass(class string) []Kind {
	var out []Kind
	for _, k := range Kinds() {
		if contains(k.Classes(), class) {
			out = append(out, k)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
