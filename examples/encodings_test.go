package examples_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/model"
)

// A lock's verdict does not depend on how it encodes its key. Each file in
// testdata/encodings stores the token another way (behind a prefix, inside
// JSON, as a hash field); one release of each deletes the key, the other
// compares with something the key never holds and so never deletes: every
// waiter then waits out the TTL after every release. Searched with no
// faults, the deleting ones are safe and the never-deleting ones stale at
// once. Before locksim attributed a key's versions to their writer, the
// stale check matched the key's value against the bare token, and all six
// were safe.
func TestVerdictsDoNotDependOnTheKeysEncoding(t *testing.T) {
	for _, c := range []struct {
		file, want string
	}{
		{"prefix-deletes.yaml", model.VerdictSafe},
		{"prefix-never-deletes.yaml", model.VerdictStale},
		{"json-deletes.yaml", model.VerdictSafe},
		{"json-never-deletes.yaml", model.VerdictStale},
		{"hash-deletes.yaml", model.VerdictSafe},
		{"hash-never-deletes.yaml", model.VerdictStale},
	} {
		t.Run(c.file, func(t *testing.T) {
			algo, err := algofile.LoadFile(filepath.Join("testdata", "encodings", c.file))
			if err != nil {
				t.Fatal(err)
			}
			e, err := explore.New(explore.Options{Lock: algo, Classes: []string{"none"}, Seed: 1, Runs: 100, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			r, err := e.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got := model.VerdictSafe
			if r.Search.Found != nil {
				got = r.Search.Found.Verdict
			}
			if got != c.want {
				t.Errorf("%s: %s in 100 runs with no fault, want %s", c.file, got, c.want)
			}
		})
	}
}

// A hash lock's orphaned acquires are leases like a string lock's: under
// lost replies, a try whose reply was lost left a version of the key that
// lives out its TTL, and the waiters it keeps out are not stuck. Before the
// node recorded a hash's content (it read as ""), the checker saw no new
// version and called this lock stuck at run 157 of seed 1.
func TestHashLocksOrphanedAcquiresAreLeases(t *testing.T) {
	algo, err := algofile.LoadFile(filepath.Join("testdata", "encodings", "hash-per-try.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := explore.New(explore.Options{Lock: algo, Classes: []string{"net"}, Seed: 1, Runs: 2000, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if f := r.Search.Found; f != nil {
		t.Errorf("hash-per-try under net: %s at run %d, want safe in 2000 runs", f.Verdict, f.Index)
	}
}
