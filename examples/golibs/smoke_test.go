package golibs_test

import (
	"testing"

	"github.com/locksim/locksim/examples/golibs/golock"
)

func TestSmoke(t *testing.T) {
	o, err := golock.Run(t, redsyncOnePool(), "token-pause")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("verdict %s digest %s end %v", o.Verdict.Verdict, o.Digest, o.Result.End)
	for _, e := range o.Result.History.Events[:min(40, len(o.Result.History.Events))] {
		t.Logf("%v", e)
	}
}
