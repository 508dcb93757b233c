package scenarios

// Scenario is everything one run depends on. A scenario file is this struct
// in YAML; unknown fields are rejected, and Validate names the field and the
// rule of anything out of bounds.
type Scenario struct {
	Name      string `yaml:"name"`
	Summary   string `yaml:"summary,omitempty"`
	Source    string `yaml:"source,omitempty"` // the documents it comes from
	Narrative string `yaml:"narrative,omitempty"`
	Algorithm string `yaml:"algorithm,omitempty"` // a registered lock; optional
	// Or what a counterexample for a lock that is not registered ran
	// against (lock.go); a scenario names at most one lock.
	AlgorithmFile *AlgorithmFile `yaml:"algorithm_file,omitempty"`
	GoLock        string         `yaml:"go_lock,omitempty"`
	// The lock's parameters, then the run's.
	Params    Params   `yaml:"params,omitempty"`
	Expect    string   `yaml:"expect,omitempty"` // the verdict a test asserts
	Seed      uint64   `yaml:"seed"`
	Duration  Duration `yaml:"duration"`
	MaxEvents int      `yaml:"max_events,omitempty"`
	// Nodes: omitted means as many as the algorithm needs, on true time.
	Nodes   []Node   `yaml:"nodes,omitempty"`
	Clients []Client `yaml:"clients"`
	Network Network  `yaml:"network"`
	Faults  []Fault  `yaml:"faults,omitempty"`
	// words are Summary's and Narrative's templates (wording.go).
	words *templates
	_     struct{} // grows: callers name the fields they set
}

// Params override the algorithm's constants; zero keeps the document's.
type Params struct {
	Key        string   `yaml:"key,omitempty"`
	TTL        Duration `yaml:"ttl,omitempty"`
	Retries    int      `yaml:"retries,omitempty"`
	RetrySleep Duration `yaml:"retry_sleep,omitempty"`
	Resolution Duration `yaml:"resolution,omitempty"`
	Nodes      int      `yaml:"nodes,omitempty"`
	// TokenScope: try (default: a fresh random token per try) or acquire
	// (one per Acquire call, kept by its retries, as bsm/redislock does).
	TokenScope string `yaml:"token_scope,omitempty"`
}

// Clock is a local clock: true time + offset + drift.
type Clock struct {
	Offset   Duration `yaml:"offset,omitempty"`
	DriftPPM int64    `yaml:"drift_ppm,omitempty"`
}

// Node is one Redis server: a primary, with replicas when it asks for them.
type Node struct {
	Clock Clock `yaml:"clock,omitempty"`
	// Persistence is what a node-restart keeps (persistence.go): none (the
	// default: every key is lost), aof-everysec or aof-always.
	Persistence string `yaml:"persistence,omitempty"`
	// RestartDelay keeps a restarted node unavailable this much longer.
	RestartDelay Duration `yaml:"restart_delay,omitempty"`
	// Replicas follow the node's writes, each after a lag drawn from
	// ReplicationLag (uniform in [min, max]); a failover promotes one.
	Replicas       int     `yaml:"replicas,omitempty"`
	ReplicationLag Latency `yaml:"replication_lag,omitempty"`
}

// Client is one process and its workload.
type Client struct {
	Name       string   `yaml:"name"`
	Clock      Clock    `yaml:"clock,omitempty"`
	Start      Duration `yaml:"start,omitempty"`
	Iterations int      `yaml:"iterations"`
	Work       Duration `yaml:"work,omitempty"`
	Think      Duration `yaml:"think,omitempty"`
	// RenewEvery runs a watchdog that extends the lease on this period
	// while the client works (algorithms that can extend; others ignore it).
	RenewEvery Duration `yaml:"renew_every,omitempty"`
	// Reenter is how many times the holder acquires again inside its
	// critical section, releasing as many before its own release.
	Reenter int `yaml:"reenter,omitempty"`
}

// Network applies to every command.
type Network struct {
	Request     Latency  `yaml:"request"`
	Reply       Latency  `yaml:"reply"`
	LossRequest float64  `yaml:"loss_request,omitempty"`
	LossReply   float64  `yaml:"loss_reply,omitempty"`
	Timeout     Duration `yaml:"timeout,omitempty"`
}

// Fault is one planned fault: at a true time, or on an event of a client.
type Fault struct {
	Kind string `yaml:"kind"`
	// Client is the target of pause, crash, a client's clock jump, and a lost request or reply.
	Client string `yaml:"client,omitempty"`
	// Node is the target of node-restart, failover and a node's clock jump.
	Node *int     `yaml:"node,omitempty"`
	At   Duration `yaml:"at,omitempty"`
	On   *Trigger `yaml:"on,omitempty"`
	// For is a pause's length, how long a restarted node stays down, a
	// failover's detection delay (the node answers nothing until a replica
	// is promoted), or how long a client waits for a lost request's or
	// reply's answer before it times out (0: network.timeout).
	For Duration `yaml:"for,omitempty"`
	// RestartAfter brings a crashed client back as a fresh process.
	RestartAfter Duration `yaml:"restart_after,omitempty"`
	// By is how far a clock jumps (negative: backwards).
	By Duration `yaml:"by,omitempty"`
	_  struct{} // grows (failover will add kinds): callers name the fields they set
}

// Trigger points as written in files.
const (
	PointSend     = "send"
	PointReply    = "reply"
	PointAcquired = "acquired"
	PointReleased = "released"
)

// Trigger is "the Nth time client does point (with command)".
type Trigger struct {
	Client  string `yaml:"client"`
	Point   string `yaml:"point"`
	Command string `yaml:"command,omitempty"`
	N       int    `yaml:"n"`
}
