package sim

import (
	"slices"
	"strconv"
	"testing"
	"time"
)

// interfaceLock is tokenLock sending through Proc.Do itself.
type interfaceLock struct{ ttl time.Duration }

func (l interfaceLock) Acquire(p Proc) (Lease, error) {
	tok := strconv.FormatUint(p.Rand().Uint64(), 16)
	px := strconv.FormatInt(l.ttl.Milliseconds(), 10)
	for {
		r, err := p.Do(0, "SET", "lock", tok, "NX", "PX", px)
		if err == nil && r.Str == "OK" {
			return Lease{Held: true, Token: tok}, nil
		}
		p.Sleep(10 * time.Millisecond)
	}
}

func (l interfaceLock) Release(p Proc, le Lease) error {
	p.Do(0, "EVAL", releaseScript, "1", "lock", le.Token)
	return nil
}

// Do is Proc.Do: the same runs, event for event.
func TestDoSendsAsProcDo(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		cfg := faultyConfig(seed)
		viaDo := digestOf(t, cfg)
		cfg.NewLocker = func(int) Locker { return interfaceLock{ttl: time.Second} }
		if viaProc := digestOf(t, cfg); viaProc != viaDo {
			t.Fatalf("seed %d: sim.Do digest %s, Proc.Do %s", seed, viaDo, viaProc)
		}
	}
}

// keepingProc is a Proc of another backend that keeps the argument lists
// it is given.
type keepingProc struct {
	Proc
	kept [][]string
}

func (p *keepingProc) Do(_ int, args ...string) (Reply, error) {
	p.kept = append(p.kept, args)
	return Reply{}, nil
}

// Another Proc is given a copy: the caller may reuse its list.
func TestDoCopiesForAnotherProc(t *testing.T) {
	p := &keepingProc{}
	args := []string{"SET", "k", "v"}
	if _, err := Do(p, 0, args...); err != nil {
		t.Fatal(err)
	}
	args[2] = "changed"
	if want := []string{"SET", "k", "v"}; len(p.kept) != 1 || !slices.Equal(p.kept[0], want) {
		t.Fatalf("kept %q, want [%q]", p.kept, want)
	}
}
