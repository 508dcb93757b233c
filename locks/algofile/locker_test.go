package algofile

import (
	"testing"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
)

// locker makes algorithm name with overrides o.
func locker(t *testing.T, name string, o locks.Params) sim.Locker {
	t.Helper()
	a, err := locks.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Validate(o); err != nil {
		t.Fatal(err)
	}
	return a.New(o)
}
