package algofile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/strictyaml"
	"github.com/locksim/locksim/internal/userfile"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
	"go.yaml.in/yaml/v3"
)

// parse.go reads an algorithm file into its YAML shape and hands it to the
// validator (validate.go), which checks every field and builds the lock that
// run.go runs; newFileAlgorithm makes the Algorithm a scenario names.

// Limits of an algorithm file. A real one is a few kilobytes and a handful of
// steps.
const (
	MaxFileSize = 1 << 20 // the file, and each script file
	maxSteps    = 32      // per operation
	maxRules    = 32      // per step
	maxArgs     = 256     // per command, keys and args together
	maxResend   = 100     // per step; redis-py resends up to 10 times
)

// algoFile is the file as written. Lists of arguments and predicates stay
// YAML nodes so that validation can name the exact field of a bad one.
type algoFile struct {
	Name       string     `yaml:"name"`
	Summary    string     `yaml:"summary"`
	Key        string     `yaml:"key"`
	TTL        string     `yaml:"ttl"`
	Resolution string     `yaml:"resolution"`
	Lifetime   string     `yaml:"lifetime"`
	Token      yaml.Node  `yaml:"token"`
	Retry      retryFile  `yaml:"retry"`
	ValidIf    *validFile `yaml:"valid_if"`
	Nodes      int        `yaml:"nodes"`  // the lock's independent nodes; 0: one
	Quorum     string     `yaml:"quorum"` // majority (default) or a count
	Acquire    *opFile    `yaml:"acquire"`
	Release    *opFile    `yaml:"release"`
	Extend     *opFile    `yaml:"extend"`
	Cleanup    *opFile    `yaml:"cleanup"`
	// Assumes declares what the lock assumes of the world beyond a TTL
	// lock's (locks.Assumptions): what ends its lease, the pause it
	// survives, fsync, the WAIT after it takes the lock.
	Assumes *assumesFile `yaml:"assumes"`
}

// assumesFile is the assumes: section.
type assumesFile struct {
	Expiry string `yaml:"expiry"` // ttl (default), timestamp, both or none
	Pause  string `yaml:"pause"`  // the longest a client may be paused in all
	Fsync  bool   `yaml:"fsync"`  // node restarts keep acknowledged writes
	Wait   string `yaml:"wait"`   // the WAIT's timeout: failovers keep what it acknowledged
}

// validFile is the Redlock family's check after a successful acquire: the
// lock is valid if the time the try took plus the drift is under the TTL,
// the drift being drift_factor × TTL + drift.
type validFile struct {
	DriftFactor string `yaml:"drift_factor"`
	Drift       string `yaml:"drift"`
}

type retryFile struct {
	Attempts  string       `yaml:"attempts"`  // a count, or "forever"
	Exhausted string       `yaml:"exhausted"` // not_held (default) or error: what giving up returns
	Sleep     string       `yaml:"sleep"`
	Jitter    yaml.Node    `yaml:"jitter"` // true, or a spread: sleep ± it
	For       string       `yaml:"for"`    // give up once the next try would start later
	Backoff   *backoffFile `yaml:"backoff"`
}

// backoffFile: the sleep after try n is sleep × factor^(n-1), at most max.
type backoffFile struct {
	Factor string `yaml:"factor"`
	Max    string `yaml:"max"`
}

// opFile is one operation: the fields of a single step, or steps.
type opFile struct {
	stepFile `yaml:",inline"`
	Steps    []stepFile `yaml:"steps"`
	Errors   string     `yaml:"errors"`
	After    string     `yaml:"after"` // cleanup: try or give_up
	// extend only: the lock's own renewal period, and the client's check
	// that the lease is still valid before it extends.
	Every      string `yaml:"every"`
	CheckValid bool   `yaml:"check_valid"`
	// Silent: a failed renewal is not told to the holder, which works on
	// (python-redis-lock's renewal thread dies on the exception).
	Silent bool `yaml:"silent"`
}

type stepFile struct {
	Label      string      `yaml:"label"`
	Command    []yaml.Node `yaml:"command"`
	Script     string      `yaml:"script"`
	ScriptFile string      `yaml:"script_file"`
	Keys       []yaml.Node `yaml:"keys"`
	Args       []yaml.Node `yaml:"args"`
	Fence      bool        `yaml:"fence"`
	Resend     yaml.Node   `yaml:"resend"`  // resends after a timeout, by the client library
	Evalsha    string      `yaml:"evalsha"` // a script sent as EVALSHA: eval or load on NOSCRIPT
	Success    yaml.Node   `yaml:"success"`
	On         []ruleFile  `yaml:"on"`
}

type ruleFile struct {
	If   yaml.Node `yaml:"if"`
	Then string    `yaml:"then"`
}

// outcome is what a step's rule decides.
type outcome uint8

const (
	outNone     outcome = iota
	outNext             // go on to the next step
	outHeld             // acquire: got the lock; extend: extended
	outRetry            // acquire: this try failed; sleep as retry says, try again
	outRetryNow         // acquire: this try failed; try again at once
	outDone             // release: released
	outLost             // extend: not extended
	outError            // the program throws: a client error
	outFail             // acquire: give up now, as after the last try
)

var outcomeNames = [...]string{"", "next", "held", "retry", "retry_now", "done", "lost", "error", "fail"}

func (o outcome) String() string { return outcomeNames[o] }

// opKind says which operation a step belongs to, for the outcomes it allows.
type opKind uint8

const (
	opAcquire opKind = iota
	opRelease
	opExtend
	opCleanup // after a failed try or acquire: a release with the try's token
)

var opNames = [...]string{"acquire", "release", "extend", "cleanup"}

// allowed lists the outcomes of each operation, in the order errors list them.
var allowed = [...][]outcome{
	opAcquire: {outHeld, outNext, outRetry, outRetryNow, outFail, outError},
	opRelease: {outDone, outNext, outError},
	opExtend:  {outHeld, outNext, outLost, outError},
	opCleanup: {outDone, outNext, outError},
}

func parseOutcome(op opKind, s string) (outcome, error) {
	var names []string
	for _, o := range allowed[op] {
		if o.String() == s {
			return o, nil
		}
		names = append(names, o.String())
	}
	return outNone, fmt.Errorf("%q is not an outcome of %s (valid: %s)", s, opNames[op], strings.Join(names, ", "))
}

// predicate kinds.
type predKind uint8

const (
	predAny predKind = iota // no condition
	predOK                  // status reply OK
	predNil
	predNotNil
	predInteger
	predEquals   // reply text equals the template
	predAtLeast  // integer reply ≥ n
	predLessThan // reply, read as an integer, < the template
	// Replies beyond strings and integers, and the errors a command meets:
	// only predTimeout and predError match a command that failed.
	predStatus  // any status reply
	predArray   // an array reply
	predLength  // an array reply of n elements
	predElement // an array reply whose element n matches sub
	predTimeout // the command timed out (after its resends)
	predError   // an error reply, whose message starts with the template when it has one
)

type predicate struct {
	kind predKind
	t    template
	n    int64
	sub  *predicate
}

var predNames = []string{"ok", "nil", "not_nil", "integer", "{equals: V}", "{at_least: N}", "{less_than: T}",
	"status", "array", "{length: N}", "{element: {index: I, is: P}}", "timeout", "error", "{error: PREFIX}"}

// matchesFailure reports a predicate that can match a command that failed.
func (p *predicate) matchesFailure() bool { return p.kind == predTimeout || p.kind == predError }

// rule is "if pred then out".
type rule struct {
	pred predicate
	then outcome
}

// step is one command, one script, or (no command) a check of the previous
// step's reply.
type step struct {
	label   template
	script  string     // a script_file's name, for the default label
	args    []template // the whole command, EVAL and script included
	fence   bool
	resend  resendPolicy
	evalsha evalshaMode
	sha     string // the script's SHA1, for EVALSHA
	rules   []rule
	usesTok bool // the command, label or rules use {token}
}

type operation struct {
	kind   opKind
	steps  []step
	errors outcome // what a timeout or an error reply decides
}

// fileAlgo is a loaded algorithm file.
type fileAlgo struct {
	name     string
	assumes  locks.Assumptions
	token    tokenSpec
	retry    retryPolicy
	acquire  operation
	release  operation
	extend   *operation
	lifetime lifetimeSpec
	scripts  map[string]string // Lua source → its script_file or step label
	// giveUpErr: giving up throws (redis-py's LockError) instead of
	// returning not held.
	giveUpErr   bool
	cleanup     *operation // after each failed try (cleanupEach), or after giving up
	cleanupEach bool
	valid       *validity // checked after a held acquire; nil: none
	every       renewPeriod
	nodes       int  // 0: one node, as before nodes: existed
	quorum      int  // 0: a majority of the nodes
	fenced      bool // an acquire step takes a fencing number
	checkValid  bool // extend refuses a lease whose validity has run out
	silent      bool // a failed extend is not told to the holder
}

// lifetimeSpec: never, or n units of the TTL rounded up to that unit plus an
// offset (the template's placeholder), or a fixed duration.
type lifetimeSpec struct {
	never bool
	fixed time.Duration
	ph    string // ttl_ms or ttl_s: the TTL counted in that unit
	off   int64
	unit  time.Duration // of the result
}

// LoadFile reads and validates an algorithm file. Script files named in it
// are read relative to its directory. Errors are one line naming the file
// and the field.
func LoadFile(path string) (locks.Algorithm, error) {
	a, _, err := LoadFileSum(path)
	return a, err
}

// LoadFileSum is LoadFile that also returns the file's sum: the hex sha256
// of its bytes followed by those of each script file it reads, in the order
// it names them (`cat FILE SCRIPTS | sha256sum`; for a file without script
// files, its own sha256). A counterexample records it to tell the lock it
// ran against from an edited one: a changed script changes the lock too.
// On a parse error the sum is still that of what was read, so a caller can
// tell a file that changed from one that never loaded.
func LoadFileSum(path string) (locks.Algorithm, string, error) {
	data, err := userfile.Read(path, MaxFileSize)
	if err != nil {
		return locks.Algorithm{}, "", fmt.Errorf("algorithm file %s: %w", path, err)
	}
	sum := sha256.New()
	sum.Write(data)
	// script_file stays inside the algorithm file's folder: running someone
	// else's algorithm file must not read (and echo in errors) files outside it.
	dir := filepath.Dir(path)
	a, err := ParseFile(path, data, func(rel string) ([]byte, error) {
		b, err := userfile.ReadIn(dir, rel, MaxFileSize)
		sum.Write(b)
		return b, err
	})
	return a, hex.EncodeToString(sum.Sum(nil)), err
}

// ParseFile reads an algorithm file from data; name is used in errors and as
// the algorithm's Source. readScript reads a script_file (nil: script files
// are refused).
func ParseFile(name string, data []byte, readScript func(path string) ([]byte, error)) (locks.Algorithm, error) {
	a, f, err := parseFile(data, readScript)
	if err != nil {
		return locks.Algorithm{}, fmt.Errorf("%s: %w", name, err)
	}
	return newFileAlgorithm(name, a, f), nil
}

func parseFile(data []byte, readScript func(string) ([]byte, error)) (*fileAlgo, *algoFile, error) {
	if len(data) > MaxFileSize {
		return nil, nil, fmt.Errorf("file is %d bytes, more than the %d an algorithm file may have", len(data), MaxFileSize)
	}
	var f algoFile
	if err := strictyaml.Decode(data, &f); err != nil {
		if errors.Is(err, strictyaml.ErrEmpty) {
			return nil, nil, errors.New("empty algorithm file")
		}
		return nil, nil, tabHint(err)
	}
	v := validator{readScript: readScript}
	a := v.file(&f)
	if v.err != nil {
		return nil, nil, v.err
	}
	a.scripts = v.scripts
	return a, &f, nil
}

// newFileAlgorithm makes the Algorithm a scenario runs.
func newFileAlgorithm(source string, a *fileAlgo, f *algoFile) locks.Algorithm {
	d := locks.Params{Key: f.Key, Retries: 1, Resolution: time.Second, Nodes: a.nodes}
	d.TTL, _ = time.ParseDuration(f.TTL)
	if f.Resolution != "" {
		d.Resolution, _ = time.ParseDuration(f.Resolution)
	}
	switch f.Retry.Attempts {
	case "":
	case "forever":
		d.Retries = locks.Forever
	default:
		d.Retries, _ = strconv.Atoi(f.Retry.Attempts)
	}
	if f.Retry.Sleep != "" {
		d.RetrySleep, _ = time.ParseDuration(f.Retry.Sleep)
	}
	summary := f.Summary
	if summary == "" {
		summary = "defined in " + source
	}
	alg := locks.Algorithm{
		Name:     a.name,
		Source:   source,
		Summary:  summary,
		Defaults: d,
		Scripts:  a.scripts,
		Assumes:  a.assumes,
	}
	alg = locks.Custom(alg, a.lifetime.of, a.nodes > 0, func(p locks.Params) error {
		switch {
		case a.nodes == 0 && p.Nodes > 1:
			return fmt.Errorf("%s: nodes %d: this algorithm file runs on one node (give it nodes: and quorum: to run on several)", a.name, p.Nodes)
		case a.nodes > 0 && p.Nodes < 1:
			return fmt.Errorf("%s: nodes %d: want at least 1", a.name, p.Nodes)
		case a.quorum > p.Nodes:
			return fmt.Errorf("%s: nodes %d: fewer than the file's quorum of %d", a.name, p.Nodes, a.quorum)
		case a.fenced && p.Nodes > 1:
			return fmt.Errorf("%s: nodes %d: a fencing number comes from one node", a.name, p.Nodes)
		}
		return nil
	})
	return locks.Define(alg, func(p locks.Params) sim.Locker {
		l := &fileLocker{a: a, p: p}
		if a.extend != nil {
			return extendingLocker{l}
		}
		return l
	})
}

// of is the lock's lifetime for parameters p.
func (l lifetimeSpec) of(p locks.Params) time.Duration {
	switch {
	case l.never:
		return 0
	case l.fixed > 0:
		return l.fixed
	case l.unit <= 0:
		return p.TTL
	}
	e := env{p: p}
	n := max(e.number(l.ph)+l.off, 1) // a negative offset never makes "never"
	if n > int64(24*365*time.Hour/l.unit) {
		return 24 * 365 * time.Hour
	}
	return time.Duration(n) * l.unit
}
