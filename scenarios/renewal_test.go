package scenarios_test

import (
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios"
)

// Bad renewal and re-entry options are one error naming the field.
func TestRenewalOptionsValidated(t *testing.T) {
	base := `name: x
algorithm: token-extend
seed: 1
duration: 10s
%PARAMS%
clients:
  - name: c1
    iterations: 1
%CLIENT%
network: {request: 1ms, reply: 1ms, timeout: 1s}
`
	for _, c := range []struct{ params, client, want string }{
		{"", "    renew_every: 1us", "clients[0].renew_every: must be 0 (no watchdog) or at least 1ms"},
		{"", "    renew_every: -1s", "clients[0].renew_every: must be within"},
		{"", "    reenter: -1", "clients[0].reenter: must be within 0..100"},
		{"", "    reenter: 101", "clients[0].reenter: must be within 0..100"},
		{"params: {token_scope: call}", "", `params.token_scope: "call": want try or acquire`},
		{"params: {token_scope: acquire}", "    renew_every: 2s\n    reenter: 2", ""},
	} {
		src := strings.NewReplacer("%PARAMS%", c.params, "%CLIENT%", c.client).Replace(base)
		_, err := scenarios.Parse("x.yaml", []byte(src))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q %q: %v", c.params, c.client, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q %q: got %v, want %q", c.params, c.client, err, c.want)
		}
	}
}
