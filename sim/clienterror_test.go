package sim_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// errOrGrab is a lock whose first process fails with an error (the
// document's code would throw) and whose others all take it unconditionally
// after a while: they overlap after c1 is gone.
type errOrGrab struct{ id int }

func (l errOrGrab) Acquire(p sim.Proc) (sim.Lease, error) {
	if l.id == 0 {
		p.Sleep(time.Millisecond)
		return sim.Lease{}, errors.New("ValueError: invalid literal")
	}
	p.Sleep(10 * time.Millisecond) // well after c1 stopped
	if _, err := p.Do(0, "SET", "lock", p.Name()); err != nil {
		return sim.Lease{}, err
	}
	return sim.Lease{Held: true, Token: p.Name()}, nil
}

func (l errOrGrab) Release(p sim.Proc, _ sim.Lease) error {
	_, err := p.Do(0, "DEL", "lock")
	return err
}

// A client-error ends only its own process: the run goes on, and the other
// processes' later overlap is still judged, so the verdict is unsafe with
// the client-error beside it.
func TestClientErrorEndsOnlyItsProcess(t *testing.T) {
	procs := []sim.ProcSpec{
		{Name: "c1", Iterations: 1},
		{Name: "c2", Iterations: 1, Work: 50 * time.Millisecond},
		{Name: "c3", Iterations: 1, Work: 50 * time.Millisecond},
	}
	res, err := sim.Run(sim.Config{
		Seed: 1, Duration: time.Minute, Nodes: []sim.NodeSpec{{}}, Procs: procs,
		Network:   sim.Network{Timeout: time.Second},
		NewLocker: func(id int) sim.Locker { return errOrGrab{id} },
		WatchKey:  "lock",
	})
	if err != nil {
		t.Fatal(err)
	}
	v := model.Check(res.History, model.Options{TTL: time.Second})
	if v.Verdict != model.VerdictUnsafe {
		t.Fatalf("verdict %s, want unsafe: %+v", v.Verdict, v.Violations)
	}
	var errAt, overlapAt time.Duration = -1, -1
	for _, x := range v.Violations {
		switch x.Kind {
		case model.KindClientError:
			if !slices.Equal(x.Processes, []string{"c1"}) {
				t.Errorf("client-error of %v, want c1", x.Processes)
			}
			errAt = time.Duration(x.From)
		case model.KindOverlap:
			if !slices.Equal(x.Processes, []string{"c2", "c3"}) {
				t.Errorf("overlap of %v, want c2, c3", x.Processes)
			}
			overlapAt = time.Duration(x.From)
		}
	}
	if errAt < 0 || overlapAt < 0 || overlapAt <= errAt {
		t.Errorf("client-error at %v, overlap at %v: want both, the overlap after c1 stopped", errAt, overlapAt)
	}
	for _, e := range res.History.Events {
		if e.Kind == sim.KindProcEnd && e.Proc != 0 && e.Err != "" {
			t.Errorf("%s ended with an error too: %s", procs[e.Proc].Name, e.Err)
		}
	}
}
