package scenarios_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// Persistence and restart delay are validated with the field named.
func TestRestartFieldsValidated(t *testing.T) {
	for _, c := range []struct{ yaml, err string }{
		{"nodes: [{persistence: rdb}]", `nodes[0].persistence: "rdb" is not a persistence mode (valid: none, aof-everysec, aof-always)`},
		{"nodes: [{}, {restart_delay: -1s}]", "nodes[1].restart_delay: must be within 0s..24h0m0s"},
		{"nodes: [{restart_delay: 25h}]", "nodes[0].restart_delay: must be within 0s..24h0m0s"},
	} {
		_, err := scenarios.Parse("x", []byte("name: x\nalgorithm: set-nx-px-token\nclients: [{name: c1}]\n"+c.yaml+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.yaml, err, c.err)
		}
	}
	s, err := scenarios.Parse("x", []byte("name: x\nalgorithm: set-nx-px-token\nclients: [{name: c1}]\nnodes: [{persistence: none}, {persistence: aof-always, restart_delay: 10s}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Prepare("")
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Config.Nodes; n[0].Persistence != sim.PersistNone || n[1].Persistence != sim.PersistAlways || n[1].RestartDelay != 10*time.Second {
		t.Errorf("engine nodes %+v", n)
	}
}
