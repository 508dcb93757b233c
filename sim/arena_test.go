package sim

import (
	"slices"
	"strconv"
	"testing"
	"time"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// Runs on released memory are bit for bit runs on new memory, and a result
// that was not released keeps its history whatever runs come after it.
func TestReleasedMemoryIsReusedSafely(t *testing.T) {
	kept, err := Run(faultyConfig(100))
	if err != nil {
		t.Fatal(err)
	}
	keptDigest := kept.History.Digest()
	// The digests on new memory first: a run with freshNodes set takes the
	// pooled memory and drops it, so that interleaved, no run below would
	// get released memory at all.
	cfgs := make([]Config, 30)
	fresh := make([]string, len(cfgs))
	for s := range cfgs {
		cfgs[s] = faultyConfig(uint64(s))
		if s%2 == 1 {
			// Cut while events are still queued: the next run must not
			// see them.
			cfgs[s].Duration = 40 * time.Millisecond
		}
		fresh[s] = digestOnNewNodes(t, cfgs[s])
	}
	var released *memory
	reused := 0
	for s, cfg := range cfgs {
		res, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.mem == released {
			reused++
		}
		if d := res.History.Digest(); d != fresh[s] {
			t.Fatalf("seed %d: on released memory %s, on new memory %s", s, d, fresh[s])
		}
		released = res.mem
		res.Release()
		res.Release() // a second release gives nothing back twice
		if res.History.Events != nil {
			t.Fatalf("seed %d: a released result still shows %d events", s, len(res.History.Events))
		}
	}
	// sync.Pool may drop what it is given (the race detector drops a
	// quarter on purpose), but not every time: with no reuse at all, the
	// digests above compared new memory with new memory.
	if reused == 0 {
		t.Fatalf("none of %d runs reused the memory the run before released", len(cfgs)-1)
	}
	// The last run was released twice: its memory must be in the pool once,
	// or two runs would be handed the same memory.
	if a, b := takeMemory(0), takeMemory(0); a == b {
		t.Fatal("a result released twice gave its memory back twice")
	}
	if d := kept.History.Digest(); d != keptDigest {
		t.Fatalf("a result never released changed under later runs: %s, was %s", d, keptDigest)
	}
}

// keep's copies end their capacity at their length, cut from a chunk or not:
// an append to one cannot write into another (the history and the
// replication stream share them).
func TestKeepEndsCapacityAtLength(t *testing.T) {
	m := takeMemory(0)
	for _, n := range []int{1, 3, arenaChunk / 4, arenaChunk/4 + 1, 17, 33} {
		args := make([]string, n)
		for i := range args {
			args[i] = strconv.Itoa(i)
		}
		got := m.keep(args)
		if len(got) != n || cap(got) != n || !slices.Equal(got, args) {
			t.Errorf("keep of %d: len %d cap %d %q", n, len(got), cap(got), got)
		}
	}
}
