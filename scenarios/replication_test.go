package scenarios_test

import (
	"strings"
	"testing"

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

// Bad replica fields name the field.
func TestReplicaFieldErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"nodes: [{replicas: 5}]", "nodes[0].replicas: must be within 0..4"},
		{"nodes: [{replicas: -1}]", "nodes[0].replicas"},
		{"nodes: [{replication_lag: 5ms}]", "nodes[0].replication_lag: the node has no replicas"},
		{"nodes: [{replicas: 1, replication_lag: {min: 5ms, max: 1ms}}]", "nodes[0].replication_lag: min 5ms is more than max 1ms"},
		{"nodes: [{replicas: 1, replication_lag: 2h}]", "nodes[0].replication_lag: must be within 0s..1h0m0s"},
		{"nodes: [{replicas: 1, replication_lag: {min: -1ms, max: 1ms}}]", "nodes[0].replication_lag: must be within"},
	} {
		src := "name: x\nalgorithm: set-nx-px-token\nseed: 1\nduration: 1s\n" + c.yaml +
			"\nclients: [{name: c1, iterations: 1}]\nnetwork: {request: 1ms, reply: 1ms}\n"
		_, err := scenarios.Parse("x.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.yaml, err, c.want)
		}
	}
}

// A scenario without replicas records no replica lanes: replication off
// changes nothing.
func TestNoReplicasNoLanes(t *testing.T) {
	s, _ := scenarios.Lookup("token-pause")
	o, err := s.Execute("", model.Options{})
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
