package judge_test

import (
	"testing"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// waitFile is set-nx-px-wait as an algorithm file: WAIT works from files.
const waitFile = `name: wait-file
key: resource_name
ttl: 30s
retry:
  attempts: forever
  sleep: 200ms
  jitter: true
acquire:
  steps:
    - command: [SET, "{key}", "{token}", NX, PX, "{ttl_ms}"]
      on:
        - {if: ok, then: next}
        - {then: retry}
    - command: [WAIT, "1", "50"]
      on:
        - {if: integer, then: held}
  errors: retry
release:
  script: |-
    if redis.call("get",KEYS[1]) == ARGV[1] then
        return redis.call("del",KEYS[1])
    else
        return 0
    end
  keys: ["{key}"]
  args: ["{token}"]
  errors: done
`

// An algorithm file that sends WAIT gets the replicas' answer: 1 where the
// replica keeps up (failover-wait, safe), 0 where it lags (unsafe).
func TestWaitFromAlgorithmFile(t *testing.T) {
	algo, err := algofile.ParseFile("wait.yaml", []byte(waitFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		scenario, verdict string
		wait              int64
	}{{"failover-wait", model.VerdictSafe, 1}, {"failover-wait-lagging", model.VerdictUnsafe, 0}} {
		o := runBuiltinWith(t, c.scenario, 0, algo)
		if o.Verdict.Verdict != c.verdict {
			t.Errorf("%s: %s, want %s", c.scenario, o.Verdict.Verdict, c.verdict)
		}
		waitAnswered(t, o, c.wait)
	}
}

// A scenario without replicas records no replica lanes: replication off
// changes nothing.
func TestNoReplicasNoLanes(t *testing.T) {
	s, _ := scenarios.Lookup("token-pause")
	o, err := judge.Run(s, "", model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range o.Result.History.Events {
		if e.Kind == sim.KindReplicate {
			t.Fatal("a replicate event without replicas")
		}
	}
	if len(o.Result.History.Replicas) != 0 {
		t.Errorf("replica lanes %v without replicas", o.Result.History.Replicas)
	}
}
