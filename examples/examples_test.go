package examples_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// parity pairs each example file with the built-in it reproduces.
var parity = []struct {
	file, builtin string
}{
	{"set-nx-px-token.yaml", "set-nx-px-token"},
	{"php-eval.yaml", "php-eval"},
	{"setnx-getset.yaml", "setnx-getset"},
	{"redlock.yaml", "redlock"},
}

// run replays s against algo and returns the verdict and the history.
func run(t *testing.T, s *scenarios.Scenario, algo locks.Algorithm) (*judge.Outcome, *sim.History) {
	t.Helper()
	p, err := s.PrepareWith(algo)
	if err != nil {
		t.Fatalf("prepare %s with %s: %v", s.Name, algo.Name, err)
	}
	o, err := judge.Prepared(s, p, model.Options{})
	if err != nil {
		t.Fatalf("run %s with %s: %v", s.Name, algo.Name, err)
	}
	return o, &o.Result.History
}

// TestExamplesMatchBuiltins replays every built-in scenario with each example
// file and with the built-in it reproduces: same verdict, same digest.
func TestExamplesMatchBuiltins(t *testing.T) {
	for _, pc := range parity {
		file, err := algofile.LoadFile(pc.file)
		if err != nil {
			t.Fatal(err)
		}
		builtin, err := locks.Lookup(pc.builtin)
		if err != nil {
			t.Fatal(err)
		}
		if file.Lifetime(locks.Params{}) != builtin.Lifetime(locks.Params{}) {
			t.Errorf("%s: lifetime %s, the built-in's %s", pc.file, file.Lifetime(locks.Params{}), builtin.Lifetime(locks.Params{}))
		}
		for _, s := range scenarios.Builtins() {
			t.Run(pc.builtin+"/"+s.Name, func(t *testing.T) {
				if bothRefuse(t, s, builtin, file) {
					return
				}
				want, wh := run(t, s, builtin)
				got, gh := run(t, s, file)
				if got.Verdict.Verdict != want.Verdict.Verdict {
					t.Errorf("verdict %s, the built-in's %s", got.Verdict.Verdict, want.Verdict.Verdict)
				}
				if got.Digest != want.Digest {
					// A built-in over a slow network (token-scope-retry) reaches
					// client errors, which name the algorithm: the histories must
					// be the same but for that name.
					renamed(gh, file.Name, builtin.Name)
					if gh.Digest() != wh.Digest() {
						t.Errorf("digest %s, the built-in's %s; %s", got.Digest, want.Digest, firstDifference(gh, wh))
					}
				}
			})
		}
	}
}

// TestExamplesMatchBuiltinsUnderFaults replays the built-in scenarios over a
// lossy, slow network with several seeds, where timeouts make the client
// errors and retries the scripted plans never reach. The histories must be
// the same but for the algorithm's name in client-error messages.
func TestExamplesMatchBuiltinsUnderFaults(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5, 6, 7, 8}
	if testing.Short() {
		seeds = seeds[:1]
	}
	errorsSeen := map[string]int{}
	for _, pc := range parity {
		file, err := algofile.LoadFile(pc.file)
		if err != nil {
			t.Fatal(err)
		}
		builtin, _ := locks.Lookup(pc.builtin)
		for _, base := range scenarios.Builtins() {
			for _, seed := range seeds {
				s := lossy(base, seed)
				t.Run(fmt.Sprintf("%s/%s/seed%d", pc.builtin, s.Name, seed), func(t *testing.T) {
					if bothRefuse(t, s, builtin, file) {
						return
					}
					want, wh := run(t, s, builtin)
					got, gh := run(t, s, file)
					errorsSeen[pc.builtin] += renamed(gh, file.Name, builtin.Name)
					if got.Verdict.Verdict != want.Verdict.Verdict {
						t.Errorf("verdict %s, the built-in's %s", got.Verdict.Verdict, want.Verdict.Verdict)
					}
					if gh.Digest() != wh.Digest() {
						t.Errorf("histories differ: %s", firstDifference(gh, wh))
					}
				})
			}
		}
	}
	// The variants must reach the error paths, or they prove nothing there.
	for _, pc := range parity {
		if pc.builtin != "set-nx-px-token" && pc.builtin != "redlock" && errorsSeen[pc.builtin] == 0 {
			t.Errorf("%s: no client error in any lossy run", pc.builtin)
		}
	}
}

// bothRefuse reports a scenario the built-in cannot run (a one-node plan
// for a five-node lock); the file must refuse it too.
func bothRefuse(t *testing.T, s *scenarios.Scenario, builtin, file locks.Algorithm) bool {
	t.Helper()
	_, errB := s.PrepareWith(builtin)
	_, errF := s.PrepareWith(file)
	if (errB == nil) != (errF == nil) {
		t.Fatalf("the built-in prepares with %v, the file with %v", errB, errF)
	}
	return errB != nil
}

// renamed rewrites the file's name in client-error messages as the
// built-in's, and counts the client errors it looked at.
func renamed(h *sim.History, file, builtin string) int {
	n := 0
	for i := range h.Events {
		if e := &h.Events[i]; e.Err != "" && e.Kind != sim.KindCommandResult {
			e.Err = strings.ReplaceAll(e.Err, file+": ", builtin+": ")
			n++
		}
	}
	return n
}

// lossy is s with lost requests and replies, uneven latency and a timeout.
func lossy(base *scenarios.Scenario, seed uint64) *scenarios.Scenario {
	s := *base
	s.Seed = seed
	s.Network.LossRequest = 0.05
	s.Network.LossReply = 0.05
	s.Network.Request = scenarios.Latency{Min: scenarios.Duration(time.Millisecond), Max: scenarios.Duration(20 * time.Millisecond)}
	s.Network.Reply = s.Network.Request
	s.Network.Timeout = scenarios.Duration(100 * time.Millisecond)
	return &s
}

// firstDifference describes where two histories part.
func firstDifference(got, want *sim.History) string {
	for i := 0; i < min(len(got.Events), len(want.Events)); i++ {
		g, w := got.Events[i], want.Events[i]
		if fmt.Sprint(g) != fmt.Sprint(w) {
			return fmt.Sprintf("event %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	return fmt.Sprintf("%d events, the built-in's %d", len(got.Events), len(want.Events))
}

// The README's example file loads and runs.
func TestReadmeExample(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(data), "```yaml\n")
	src, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("README.md has no yaml block")
	}
	extend := "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end\nreturn 0"
	a, err := algofile.ParseFile("README.md", []byte(src), func(string) ([]byte, error) { return []byte(extend), nil })
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.Lookup("token-pause")
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := run(t, s, a); o.Verdict.Verdict != model.VerdictUnsafe {
		t.Errorf("token-pause: %s, want unsafe", o.Verdict.Verdict)
	}
}
