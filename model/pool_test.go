package model

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// Check reuses the lists of the check before it (traces, trace.go): nothing
// may leak from one history's judgement into the next. Each corpus history,
// a long busy one in between, is judged after every other, and must get
// exactly the verdict, witnesses included, it gets from a trace never used.
func TestCheckAfterAnotherIsFresh(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	busy := busyHistory(200)
	type judged struct {
		json    string
		verdict Verdict
	}
	fresh := make([]judged, len(files))
	opts := make([]Options, len(files))
	for i, path := range files {
		_, h, o, err := loadCorpusCase(path)
		if err != nil {
			t.Fatal(err)
		}
		opts[i] = o
		v := checkFresh(h, o)
		b, _ := json.Marshal(v)
		fresh[i] = judged{string(b), v}
	}
	for i, path := range files {
		_, h, _, _ := loadCorpusCase(path)
		for _, j := range []int{(i + 1) % len(files), (i + len(files) - 1) % len(files)} {
			_, other, _, _ := loadCorpusCase(files[j])
			Check(other, opts[j])
			Check(busy, Options{TTL: 10 * time.Second})
			v := Check(h, opts[i])
			if b, _ := json.Marshal(v); string(b) != fresh[i].json || !reflect.DeepEqual(v, fresh[i].verdict) {
				t.Errorf("%s after %s: %s, judged fresh %s", filepath.Base(path), filepath.Base(files[j]), b, fresh[i].json)
			}
		}
	}
}

// checkFresh is Check on a trace no check has used.
func checkFresh(h sim.History, o Options) Verdict {
	// Drop what the pool holds until Get makes a new trace, then hand that
	// one back for Check to take.
	for {
		t := traces.Get().(*trace)
		if t.holds == nil && t.lockOps == nil && t.ps == nil {
			traces.Put(t)
			break
		}
	}
	return Check(h, o)
}
