package locks

import (
	"testing"

	"github.com/locksim/locksim/internal/locktest"
	"github.com/locksim/locksim/sim"
)

// The tests' world is locktest's, shared with the algorithm files' tests.
type (
	World = locktest.World
	Proc  = locktest.Proc
)

var (
	NewWorld    = locktest.NewWorld
	MustAcquire = locktest.MustAcquire
	MustFail    = locktest.MustFail
	MustRelease = locktest.MustRelease
)

// locker makes algorithm name with overrides o.
func locker(t *testing.T, name string, o Params) sim.Locker {
	t.Helper()
	a, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Validate(o); err != nil {
		t.Fatal(err)
	}
	return a.New(o)
}
