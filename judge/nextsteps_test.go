package judge

import (
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/locks/algofile"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// Each rule of NextSteps on runs whose history must produce it, and on runs
// that must not: the rules read how keys ended and which faults acted, so a
// built-in replayed with another lock reads differently from its own.
func TestNextSteps(t *testing.T) {
	cases := []struct {
		scenario, algo, file string // file: an algorithm file in testdata
		want, not            []string
		says                 string // a phrase the first wanted step's words must hold
	}{
		{scenario: "token-pause", want: []string{"outside", "lease-lapsed-in-pause"},
			not: []string{"lease-lapsed-in-work", "deleted-other-holder", "compare-previous"}, says: "during c1's 35s pause"},
		{scenario: "token-extend-renewed", algo: "set-nx-px-token", want: []string{"lease-lapsed-in-work"},
			not: []string{"lease-lapsed-in-pause"}, says: "while c1 was still working"},
		{scenario: "token-extend-renewed", not: []string{"outside", "lease-lapsed-in-work", "compare-previous"}},
		{scenario: "checked-release-race", want: []string{"deleted-other-holder"}, says: "c0's DEL at 6.503s in its release"},
		{scenario: "del-race", want: []string{"deleted-other-holder"}, says: "in its acquire"},
		{scenario: "del-race", algo: "setnx-getset", not: []string{"deleted-other-holder", "took-over-live-lock"}},
		{scenario: "pause-del-release", want: []string{"lease-lapsed-in-pause", "deleted-other-holder"},
			not: []string{"took-over-live-lock"}},
		{scenario: "clock-skew-steal", want: []string{"took-over-live-lock", "outside"},
			not: []string{"lease-lapsed-in-pause", "lease-lapsed-in-work"}, says: "runs 1m1s ahead"},
		{scenario: "clock-skew-steal", algo: "set-nx-px-token", not: []string{"took-over-live-lock"}},
		{scenario: "failover-lost-lock", want: []string{"key-lost-by-fault"}, says: "failover at 2ms"},
		{scenario: "failover-wait", not: []string{"key-lost-by-fault", "outside"}},
		{scenario: "redlock-node-restart", want: []string{"key-lost-by-fault"}, says: "node-restart"},
		{scenario: "redlock-aof-always", not: []string{"key-lost-by-fault"}},
		{scenario: "redlock-clock-jump", want: []string{"key-lost-by-fault"}, says: "node2's clock jumped"},
		{scenario: "crash-deadlock", want: []string{"key-without-ttl"}, not: []string{"waiter-rewrites-key"}, says: "c3 crashed holding it"},
		{scenario: "lost-setnx-reply", want: []string{"key-without-ttl", "client-error"}, says: "Acquire failed"},
		{scenario: "setnx-expire-crash", want: []string{"key-without-ttl"}, says: "before its Acquire returned"},
		{scenario: "set-get-deadlock", want: []string{"waiter-rewrites-key"}, not: []string{"key-without-ttl"}},
		{scenario: "php-eval-stale-unlock", want: []string{"release-left-key"}},
		{scenario: "python-none-crash", want: []string{"client-error"}},
		{scenario: "testdata/extend-pause.yaml", file: "blind-extend.yaml",
			want: []string{"lease-lapsed-in-pause", "extended-other-holder", "compare-previous"}},
		{scenario: "testdata/extend-pause.yaml", file: "checked-extend.yaml",
			want: []string{"compare-previous"}, not: []string{"extended-other-holder"}},
	}
	for _, c := range cases {
		name := c.scenario + " " + c.algo + c.file
		t.Run(name, func(t *testing.T) {
			o := runFor(t, c.scenario, c.algo, c.file)
			steps := o.NextSteps()
			var rules []string
			for _, s := range steps {
				rules = append(rules, s.Rule)
				if s.Means == "" {
					t.Errorf("step %s says nothing", s.Rule)
				}
			}
			for _, w := range c.want {
				if !slices.Contains(rules, w) {
					t.Errorf("rules %v: want %s", rules, w)
				}
			}
			for _, n := range c.not {
				if slices.Contains(rules, n) {
					t.Errorf("rules %v: want no %s", rules, n)
				}
			}
			if c.says != "" {
				for _, s := range steps {
					if s.Rule == c.want[len(c.want)-1] || s.Rule == c.want[0] {
						if strings.Contains(s.Means, c.says) {
							return
						}
					}
				}
				t.Errorf("no step of %v says %q: %+v", c.want, c.says, steps)
			}
		})
	}
}

// A safe run gets no next step at all; each thing to try is said once.
func TestNextStepsQuietWhenSafe(t *testing.T) {
	for _, name := range []string{"getset-race", "failover-wait", "watchdog-stalled-holder"} {
		if steps := runFor(t, name, "", "").NextSteps(); len(steps) != 0 {
			t.Errorf("%s is safe, yet: %+v", name, steps)
		}
	}
	seen := map[string]bool{}
	for _, s := range runFor(t, "pause-del-release", "", "").NextSteps() {
		for _, try := range s.Try {
			if seen[try] {
				t.Errorf("%q said twice", try)
			}
			seen[try] = true
		}
	}
}

// runFor runs a built-in scenario (or a file under this folder) with its own
// lock, a registered one, or an algorithm file in testdata.
func runFor(t *testing.T, scenario, algo, file string) *Outcome {
	t.Helper()
	var s *scenarios.Scenario
	var err error
	if strings.HasSuffix(scenario, ".yaml") {
		s, err = scenarios.Load(scenario)
	} else {
		s, err = scenarios.Lookup(scenario)
	}
	if err != nil {
		t.Fatal(err)
	}
	if file == "" {
		o, err := Run(s, algo, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	a, err := algofile.LoadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.PrepareWith(a)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Prepared(s, p, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}
