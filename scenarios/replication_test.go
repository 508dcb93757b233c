package scenarios_test

import (
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios"
)

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
