package foreign

import (
	"testing"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks/resolve"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

func TestSmoke(t *testing.T) {
	prog, err := Load("testdata/setnx-px.py")
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.Resolve("del-race")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{Fresh, Forked} {
		p, err := resolve.Lock{Algorithm: prog.Algorithm(Starter{Mode: mode})}.Prepare(s)
		if err != nil {
			t.Fatal(err)
		}
		o, err := judge.Prepared(s, p, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s digest %s", mode, o.Verdict, o.Digest)
		for _, e := range o.Result.History.Events {
			t.Log(e)
		}
	}
}
