package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/internal/redistest"
)

func TestRedisFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"run", "del-race", "--redis", "nonsense"}, `simrun run: --redis: "nonsense": want host:port or host:port/db`},
		{[]string{"run", "del-race", "--redis", "127.0.0.1:1"}, "simrun run: --redis: node 0 (127.0.0.1:1): dial tcp"},
		{[]string{"run", "redlock-clock-jump", "--redis", "127.0.0.1:1"},
			"simrun run: --redis: scenario redlock-clock-jump: faults[2]: a node clock jump needs a server whose clock locksim steps: --redis start"},
		{[]string{"run", "redlock-aof-always", "--redis", "127.0.0.1:1"},
			"simrun run: --redis: scenario redlock-aof-always: nodes[0].persistence: a restart of a server locksim did not start keeps nothing (FLUSHDB); aof-always needs --redis start"},
		{[]string{"explore", "--algo", "setnx-getset", "--redis", "127.0.0.1:1"},
			"simrun explore: --runs: 10000: with --redis at most 200"},
		{[]string{"explore", "--algo", "setnx-getset", "--redis", "start", "--runs", "201"},
			"simrun explore: --runs: 201: with --redis at most 200"},
		{[]string{"explore", "--algo", "setnx-getset", "--redis", "127.0.0.1:1", "--runs", "5", "--shard", "0/2"},
			"simrun explore: --shard: not with --redis"},
	} {
		code, _, stderr := simrun(c.args...)
		if code != 2 || !strings.HasPrefix(stderr, c.err) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line starting %q", c.args, code, stderr, c.err)
		}
	}
}

func TestJSONBackend(t *testing.T) {
	_, out, _ := simrun("run", "getset-race", "--json")
	var j struct{ Backend string }
	if err := json.Unmarshal([]byte(out), &j); err != nil || j.Backend != "sim" {
		t.Errorf("backend %q (%v), want sim", j.Backend, err)
	}
}

// TestRunRedisDelRace is TestDelRaceReal through the CLI: del-race
// against redis-server is UNSAFE with the simulation's witness kinds.
func TestRunRedisDelRace(t *testing.T) {
	addr := redistest.Addr(t)
	kinds := func(out string) (string, string) {
		var j struct {
			Backend, Verdict string
			Violations       []struct{ Kind string }
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatal(err)
		}
		var ks []string
		for _, v := range j.Violations {
			ks = append(ks, v.Kind)
		}
		slices.Sort(ks) // the two kinds' windows start a few µs apart: order is timing
		return j.Backend + " " + j.Verdict, strings.Join(ks, ",")
	}
	// Up to three runs: real time is not deterministic, and a stall of the
	// machine longer than the scenario's 10 ms margin can miss the race.
	var realV, realK string
	for i := 1; i <= 3; i++ {
		code, out, stderr := simrun("run", "del-race", "--redis", addr, "--json")
		if code == 2 {
			t.Fatalf("exit 2: %s", stderr)
		}
		if realV, realK = kinds(out); code == 1 {
			break
		}
		t.Logf("attempt %d: %s", i, realV)
	}
	_, out, _ := simrun("run", "del-race", "--json")
	_, simK := kinds(out)
	if realV != "redis "+addr+" unsafe" || realK != simK {
		t.Errorf("real: %s [%s]; sim: unsafe [%s]", realV, realK, simK)
	}
}
