package sim

import (
	"errors"
	"fmt"

	"github.com/locksim/locksim/fault"
)

// validate rejects a configuration the engine cannot run. User-facing
// validation with field names lives with the scenario format; this guards
// the engine's own invariants.
func (c *Config) validate() error {
	switch {
	case c.NewLocker == nil:
		return errors.New("sim: config has no NewLocker")
	case len(c.Nodes) == 0:
		return errors.New("sim: config has no nodes")
	case len(c.Procs) == 0:
		return errors.New("sim: config has no processes")
	case c.Duration <= 0:
		return errors.New("sim: duration must be positive")
	case c.MaxEvents < 0:
		return errors.New("sim: max events must not be negative")
	}
	for i, n := range c.Nodes {
		switch {
		case n.Persistence > PersistAlways:
			return fmt.Errorf("sim: nodes[%d]: persistence %d is not a mode (0 none, 1 aof-everysec, 2 aof-always)", i, n.Persistence)
		case n.RestartDelay < 0:
			return fmt.Errorf("sim: nodes[%d]: restart delay %v is negative", i, n.RestartDelay)
		case n.Replicas < 0 || n.ReplicationLag.Min < 0 || n.ReplicationLag.Max < 0:
			return fmt.Errorf("sim: nodes[%d]: replicas and replication lag must not be negative", i)
		}
	}
	for i, p := range c.Procs {
		if p.Iterations < 0 || p.Work < 0 || p.Think < 0 || p.Start < 0 || p.RenewEvery < 0 || p.Reenter < 0 {
			return fmt.Errorf("sim: procs[%d]: iterations, work, think, start, renew every and reenter must not be negative", i)
		}
	}
	nw := c.Network
	for _, l := range []Latency{nw.Request, nw.Reply} {
		if l.Min < 0 || l.Max < 0 {
			return errors.New("sim: network latency must not be negative")
		}
	}
	if nw.LossRequest < 0 || nw.LossRequest > 1 || nw.LossReply < 0 || nw.LossReply > 1 {
		return errors.New("sim: network loss must be within [0, 1]")
	}
	if nw.Timeout < 0 {
		return errors.New("sim: network timeout must not be negative")
	}
	for i, f := range c.Faults {
		if err := f.validate(len(c.Procs), len(c.Nodes)); err != nil {
			return fmt.Errorf("sim: faults[%d]: %w", i, err)
		}
	}
	return nil
}

func (f *Fault) validate(procs, nodes int) error {
	switch target := f.Kind.Target(); {
	case !f.Kind.Planned() || !Applies(f.Kind):
		return fmt.Errorf("fault kind %d cannot be planned", f.Kind)
	case target == fault.OnClient && (f.Proc < 0 || f.Proc >= procs):
		return fmt.Errorf("process %d does not exist", f.Proc)
	case target == fault.OnNode && (f.Node < 0 || f.Node >= nodes):
		return fmt.Errorf("node %d does not exist", f.Node)
	}
	if !f.Kind.Signed() && f.Dur < 0 {
		return errors.New("duration must not be negative")
	}
	if f.At < 0 {
		return errors.New("time must not be negative")
	}
	if f.On.Point != PointAt {
		if f.On.Point > PointReleased {
			return fmt.Errorf("trigger point %d does not exist", f.On.Point)
		}
		if f.On.Proc < 0 || f.On.Proc >= procs {
			return fmt.Errorf("trigger process %d does not exist", f.On.Proc)
		}
		if f.On.N < 1 {
			return errors.New("trigger count must be at least 1")
		}
	}
	return nil
}
