package scenarios

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
)

// Limits on what a scenario may ask for: beyond them a run would take too
// long or too much memory to be useful, so the file is refused up front.
const (
	MaxClients  = 64
	MaxNodes    = 15
	MaxFaults   = 10_000
	MaxDuration = 24 * time.Hour
	// DefaultDuration is the true-time limit of a scenario file that gives
	// no duration.
	DefaultDuration = time.Minute
	MaxEvents       = sim.DefaultMaxEvents
	MaxIterations   = 1_000_000
	MaxDriftPPM     = 100_000
	MaxLatency      = time.Hour
)

// Verdicts a scenario may expect: the checker's verdicts (model's
// Verdict* constants), spelled out so that the format imports no checker;
// package judge's tests keep the two lists the same.
var Verdicts = []string{"safe", "unsafe", "stuck", "stale", "client-error", "incomplete"}

var clientName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,32}$`)

// fieldError names the field and the rule it breaks.
func fieldError(field, format string, args ...any) error {
	return fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...))
}

// Validate checks every field against its rule; the error names the first
// field that breaks one.
func (s *Scenario) Validate() error {
	algo, err := s.validateLock()
	if err != nil {
		return err
	}
	registered := s.Algorithm != "" // else the lock is checked when it is loaded
	if err := s.validateParams(algo, registered); err != nil {
		return err
	}
	if s.Expect != "" && !contains(Verdicts, s.Expect) {
		return fieldError("expect", "%q is not a verdict (valid: %s)", s.Expect, strings.Join(Verdicts, ", "))
	}
	if s.Duration <= 0 || s.Duration.D() > MaxDuration {
		return fieldError("duration", "must be more than 0s and at most %s", MaxDuration)
	}
	if s.MaxEvents < 0 || s.MaxEvents > MaxEvents {
		return fieldError("max_events", "must be within 0..%d (0: %d)", MaxEvents, MaxEvents)
	}
	if len(s.Nodes) > MaxNodes {
		return fieldError("nodes", "%d nodes: at most %d", len(s.Nodes), MaxNodes)
	}
	if need := algo.NodesNeeded(s.LockParams()); registered && len(s.Nodes) > 0 && len(s.Nodes) < need {
		return fieldError("nodes", "%s needs %d nodes, the scenario has %d", algo.Name, need, len(s.Nodes))
	}
	for i, n := range s.Nodes {
		if err := n.Clock.validate(fmt.Sprintf("nodes[%d].clock", i)); err != nil {
			return err
		}
		if err := n.validateRestart(fmt.Sprintf("nodes[%d]", i)); err != nil {
			return err
		}
		if err := n.validateReplicas(fmt.Sprintf("nodes[%d]", i)); err != nil {
			return err
		}
	}
	if err := s.validateClients(); err != nil {
		return err
	}
	if err := s.Network.validate(); err != nil {
		return err
	}
	if len(s.Faults) > MaxFaults {
		return fieldError("faults", "%d faults: at most %d", len(s.Faults), MaxFaults)
	}
	for i := range s.Faults {
		if err := s.validateFault(i); err != nil {
			return err
		}
	}
	return nil
}

// validateParams checks the overrides' bounds, and the algorithm's own
// rules when it is registered (another lock checks them when it is loaded).
func (s *Scenario) validateParams(algo locks.Algorithm, registered bool) error {
	p := s.Params
	for _, d := range []struct {
		field string
		v     Duration
	}{{"params.ttl", p.TTL}, {"params.retry_sleep", p.RetrySleep}, {"params.resolution", p.Resolution}} {
		if d.v < 0 || d.v.D() > MaxDuration {
			return fieldError(d.field, "must be within 0s..%s", MaxDuration)
		}
	}
	if p.Resolution != 0 && p.Resolution.D() != time.Second && p.Resolution.D() != time.Millisecond {
		return fieldError("params.resolution", "must be 1s or 1ms")
	}
	if p.Retries < locks.Forever || p.Retries > MaxIterations {
		return fieldError("params.retries", "must be a count of tries within 1..%d, or %d for no bound", MaxIterations, locks.Forever)
	}
	if p.Nodes < 0 || p.Nodes > MaxNodes {
		return fieldError("params.nodes", "must be within 1..%d", MaxNodes)
	}
	if p.TokenScope != "" && p.TokenScope != locks.TokenTry && p.TokenScope != locks.TokenAcquire {
		return fieldError("params.token_scope", "%q: want %s or %s", p.TokenScope, locks.TokenTry, locks.TokenAcquire)
	}
	if len(p.Key) > 512 {
		return fieldError("params.key", "at most 512 bytes")
	}
	if !registered {
		return nil
	}
	if err := algo.Validate(s.LockParams()); err != nil {
		return fieldError("params", "%v", err)
	}
	return nil
}

func (c Clock) validate(field string) error {
	if c.Offset.D() < -MaxDuration || c.Offset.D() > MaxDuration {
		return fieldError(field+".offset", "must be within ±%s", MaxDuration)
	}
	if c.DriftPPM < -MaxDriftPPM || c.DriftPPM > MaxDriftPPM {
		return fieldError(field+".drift_ppm", "must be within ±%d", MaxDriftPPM)
	}
	return nil
}

func (s *Scenario) validateClients() error {
	if len(s.Clients) == 0 {
		return fieldError("clients", "at least one client")
	}
	if len(s.Clients) > MaxClients {
		return fieldError("clients", "%d clients: at most %d", len(s.Clients), MaxClients)
	}
	for i, c := range s.Clients {
		field := fmt.Sprintf("clients[%d]", i)
		if !clientName.MatchString(c.Name) {
			return fieldError(field+".name", "%q: want 1 to 32 letters, digits, '.', '_' or '-'", c.Name)
		}
		if j := s.clientIndex(c.Name); j != i {
			return fieldError(field+".name", "%q is also clients[%d]", c.Name, j)
		}
		if err := c.Clock.validate(field + ".clock"); err != nil {
			return err
		}
		if c.Iterations < 0 || c.Iterations > MaxIterations {
			return fieldError(field+".iterations", "must be within 0..%d", MaxIterations)
		}
		for _, d := range []struct {
			name string
			v    Duration
		}{{"start", c.Start}, {"work", c.Work}, {"think", c.Think}, {"renew_every", c.RenewEvery}} {
			if d.v < 0 || d.v.D() > MaxDuration {
				return fieldError(field+"."+d.name, "must be within 0s..%s", MaxDuration)
			}
		}
		if err := c.validateRenewal(field); err != nil {
			return err
		}
		if err := c.validateReentry(field); err != nil {
			return err
		}
	}
	return nil
}

// MaxReplicas bounds a node's replicas.
const MaxReplicas = 4

func (n Node) validateReplicas(field string) error {
	if n.Replicas < 0 || n.Replicas > MaxReplicas {
		return fieldError(field+".replicas", "must be within 0..%d", MaxReplicas)
	}
	if n.ReplicationLag != (Latency{}) && n.Replicas == 0 {
		return fieldError(field+".replication_lag", "the node has no replicas")
	}
	return n.ReplicationLag.validate(field + ".replication_lag")
}

// validate checks a latency range: within 0..MaxLatency, min ≤ max.
func (l Latency) validate(field string) error {
	if l.Min < 0 || l.Max.D() > MaxLatency {
		return fieldError(field, "must be within 0s..%s", MaxLatency)
	}
	if l.Min > l.Max {
		return fieldError(field, "min %s is more than max %s", l.Min.D(), l.Max.D())
	}
	return nil
}

func (n Network) validate() error {
	if err := n.Request.validate("network.request"); err != nil {
		return err
	}
	if err := n.Reply.validate("network.reply"); err != nil {
		return err
	}
	for _, p := range []struct {
		field string
		v     float64
	}{{"network.loss_request", n.LossRequest}, {"network.loss_reply", n.LossReply}} {
		if !(p.v >= 0 && p.v <= 1) { // also refuses NaN
			return fieldError(p.field, "must be a probability within 0..1")
		}
	}
	if n.Timeout < 0 || n.Timeout.D() > MaxLatency {
		return fieldError("network.timeout", "must be within 0s..%s (0: wait for ever)", MaxLatency)
	}
	return nil
}

var points = []string{PointSend, PointReply, PointAcquired, PointReleased}

func (s *Scenario) validateFault(i int) error {
	f := s.Faults[i]
	field := fmt.Sprintf("faults[%d]", i)
	kind := fileFaultOf(f.Kind) // faultkinds.go
	if kind == nil {
		return fieldError(field+".kind", "%q is not a fault (valid: %s)", f.Kind, strings.Join(FaultKinds(), ", "))
	}
	onNode := kind.onNode(&f)
	switch {
	case onNode && f.Client != "":
		return fieldError(field, "names both a client and a node: a %s has one target", f.Kind)
	case onNode && f.Node == nil:
		return fieldError(field+".node", "missing: a %s names its node (0 is the first)", f.Kind)
	case onNode && (*f.Node < 0 || *f.Node >= s.nodeCount()):
		return fieldError(field+".node", "node %d does not exist (the run has %d)", *f.Node, s.nodeCount())
	case !onNode && f.Node != nil:
		return fieldError(field+".node", "a %s targets a client, not a node", f.Kind)
	case !onNode && s.clientIndex(f.Client) < 0:
		return fieldError(field+".client", "%q is not a client of this scenario", f.Client)
	}
	if f.At < 0 || f.At.D() > MaxDuration {
		return fieldError(field+".at", "must be within 0s..%s", MaxDuration)
	}
	if f.For < 0 || f.For.D() > MaxDuration || f.RestartAfter < 0 || f.RestartAfter.D() > MaxDuration {
		return fieldError(field, "for and restart_after must be within 0s..%s", MaxDuration)
	}
	if f.By.D() < -MaxDuration || f.By.D() > MaxDuration {
		return fieldError(field+".by", "must be within ±%s", MaxDuration)
	}
	if kind.field() != fault.FieldBy && f.By != 0 {
		return fieldError(field+".by", "only a %s has by", takersOf(fault.FieldBy))
	}
	if kind.field() != fault.FieldRestartAfter && f.RestartAfter != 0 {
		return fieldError(field+".restart_after", "only a %s has restart_after", takersOf(fault.FieldRestartAfter))
	}
	if kind.field() != fault.FieldFor && f.For != 0 {
		return fieldError(field+".for", "a %s has no length", f.Kind)
	}
	if kind.lost() && f.On == nil {
		return fieldError(field+".on", "a %s needs on: the client's next command after that event is the one lost", f.Kind)
	}
	if kind.lost() && f.For == 0 && s.Network.Timeout == 0 {
		return fieldError(field+".for", "a %s needs for: (how long the client waits) or a network.timeout", f.Kind)
	}
	if f.On == nil {
		return nil
	}
	on := f.On
	if f.At != 0 {
		return fieldError(field, "has both at and on: a fault fires at a time or on an event")
	}
	if s.clientIndex(on.Client) < 0 {
		return fieldError(field+".on.client", "%q is not a client of this scenario", on.Client)
	}
	if !contains(points, on.Point) {
		return fieldError(field+".on.point", "%q is not a point (valid: %s)", on.Point, strings.Join(points, ", "))
	}
	if on.Command != "" && on.Point != PointSend && on.Point != PointReply {
		return fieldError(field+".on.command", "only send and reply points name a command")
	}
	if len(on.Command) > 64 {
		return fieldError(field+".on.command", "at most 64 bytes")
	}
	if on.N < 1 || on.N > 1_000_000_000 {
		return fieldError(field+".on.n", "must be within 1..1000000000")
	}
	return nil
}

func (s *Scenario) clientIndex(name string) int {
	for i, c := range s.Clients {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// nodeCount is how many nodes a fault may name: the listed ones, else as
// many as the registered algorithm needs; a lock known only when the run
// is prepared gets a node for every one the fault plan names (PrepareWith).
func (s *Scenario) nodeCount() int {
	if len(s.Nodes) > 0 {
		return len(s.Nodes)
	}
	if s.Algorithm == "" {
		return MaxNodes
	}
	algo, err := locks.Lookup(s.Algorithm)
	if err != nil {
		return 1
	}
	return max(algo.NodesNeeded(s.LockParams()), 1)
}

// LockParams are the scenario's overrides of the lock's parameters (its
// params: block), as the algorithm takes them.
func (s *Scenario) LockParams() locks.Params {
	p := s.Params
	return locks.Params{Key: p.Key, TTL: p.TTL.D(), Retries: p.Retries, RetrySleep: p.RetrySleep.D(),
		Resolution: p.Resolution.D(), Nodes: p.Nodes, TokenScope: p.TokenScope}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
