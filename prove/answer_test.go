package prove

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// TestInsideOutsideSplit: set-nx-px-token with a short and a long pause on
// the menu. Inside its assumptions (InsideTTL) every schedule is safe, and
// the short pause was among them; the long pause is never inside, and
// outside it is the overlap, after which no outside schedule runs. Every
// schedule found lies on the side InsideTTL gives its scenario.
func TestInsideOutsideSplit(t *testing.T) {
	r := run(t, Options{Algorithm: "set-nx-px-token", Rounds: 1, Classes: []string{ClassShortPause, ClassLongPause}, MaxFaults: 1})
	if !r.ProvedInside() || r.Inside.Schedules < 2 {
		t.Fatalf("inside not proved: %+v", r.Inside)
	}
	if f := r.Outside.Found; f == nil || f.Verdict != model.VerdictUnsafe || f.Schedule[0].Choice != "pause 3·TTL/2" || !strings.Contains(f.Outside, "exceeds what a 30s TTL allows") {
		t.Fatalf("outside found %+v, want the overlap of a long pause", f)
	}
	if r.Outside.Skipped == 0 {
		t.Error("no outside schedule was skipped after the outside answer")
	}
	if want := []string{ClassLongPause}; len(r.NeverInside) != 1 || r.NeverInside[0].Class != want[0] {
		t.Errorf("never inside %+v, want %v", r.NeverInside, want)
	}
	if r.Found == nil || r.Found.Verdict != model.VerdictUnsafe || r.Proved() {
		t.Errorf("both sides together: %+v, want the overlap", r.Found)
	}
	for _, f := range append(slices.Clone(r.Inside.Met), r.Outside.Met...) {
		if got := f.Scenario.InsideTTL(); (got == nil) != (f.Outside == "") {
			t.Errorf("%s at %v: outside %q, InsideTTL says %v", f.Verdict, f.Schedule, f.Outside, got)
		}
	}
}

// TestFindsDelRaceInside: setnx-del-recover's DEL race breaks no
// assumption of the lock (a crash and a 2 ms reordering): it is the inside
// answer, and the enumeration stops there.
func TestFindsDelRaceInside(t *testing.T) {
	r := run(t, Options{Algorithm: "setnx-del-recover", Clients: 3, Rounds: 1, Classes: []string{ClassCrash}, MaxFaults: 1, MaxDelays: 1})
	if f := r.Inside.Found; f == nil || f.Verdict != model.VerdictUnsafe || f.Outside != "" || f.Scenario.InsideTTL() != nil {
		t.Fatalf("inside found %+v, want the DEL race", f)
	}
	if r.ProvedInside() {
		t.Fatal("proved inside with a race found")
	}
}

// TestShortPauseFollowsWork: by default the short pause is TTL/2K; with
// work that leaves less room inside the TTL it is the longest whole
// millisecond that stays inside with the delays and round trips, and a
// millisecond more would not; the delays follow the latency.
func TestShortPauseFollowsWork(t *testing.T) {
	p, err := New(Options{Algorithm: "set-nx-px-token", Classes: []string{ClassShortPause}, MaxFaults: 1, MaxDelays: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c := p.menu[0]; c.name != "pause TTL/2K" || c.fault.For.D() != 15*time.Second {
		t.Fatalf("default short pause %s %s, want TTL/2K = 15s", c.name, c.fault.For.D())
	}
	for _, o := range []Options{
		{Algorithm: "set-nx-px-token", Work: 25 * time.Second, MaxFaults: 1, MaxDelays: 1},
		{Algorithm: "set-nx-px-token", TTL: 10 * time.Second, Work: 8 * time.Second, Latency: 5 * time.Millisecond, MaxFaults: 2, MaxDelays: 1},
		{Algorithm: "setnx-getset", MaxFaults: 1, MaxDelays: 1}, // TTL/2K of its 5 s lifetime is past its 3 s TTL
	} {
		o.Classes = []string{ClassShortPause}
		p, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		short := p.menu[0].fault.For.D()
		if p.menu[0].name != "pause "+short.String() || short <= 0 || short%time.Millisecond != 0 {
			t.Fatalf("%+v: short pause %s named %q", o, short, p.menu[0].name)
		}
		lat := p.params.Latency
		if d := p.menu[len(p.menu)-1]; d.name != "delay "+(2*lat).String() {
			t.Errorf("%+v: longest delay %q, want 2 × latency %s", o, d.name, lat)
		}
		with := func(d time.Duration) string {
			var fs []scenarios.Fault
			for range o.MaxFaults {
				fs = append(fs, scenarios.Fault{Kind: fault.Pause.File(), Client: "c1", For: scenarios.Duration(d)})
			}
			fs = append(fs, scenarios.Fault{Kind: fault.Pause.File(), Client: "c1", For: scenarios.Duration(2 * lat)})
			return p.outsideOf(fs)
		}
		if why := with(short); why != "" {
			t.Errorf("%+v: %d short pauses of %s and a delay leave the assumptions: %s", o, o.MaxFaults, short, why)
		}
		if with(short+time.Millisecond) == "" {
			t.Errorf("%+v: a short pause of %s is not the longest inside", o, short)
		}
	}
}

// TestOutsideExtendsOutside: the enumeration does not run the extensions
// of an outside schedule once the outside answer is settled, as they are
// outside too. Check it of every menu choice added to every outside
// one-choice schedule, for locks of each kind of TTL.
func TestOutsideExtendsOutside(t *testing.T) {
	for _, algo := range []string{"set-nx-px-token", "setnx-getset", "redlock", "php-set-get"} {
		p, err := New(Options{Algorithm: algo, Classes: allClasses, MaxFaults: 2, MaxDelays: 1})
		if err != nil {
			t.Fatal(err)
		}
		st := Step{Client: "c1", Point: "send", N: 1}
		for i := range p.menu {
			first := []scenarios.Fault{p.fault(&p.menu[i], st)}
			if p.outsideOf(first) == "" {
				continue
			}
			for j := range p.menu {
				for _, c := range []string{"c1", "c2"} {
					more := append(slices.Clone(first), p.fault(&p.menu[j], Step{Client: c, Point: "reply", N: 2}))
					if p.outsideOf(more) == "" {
						t.Errorf("%s: %s then %s on %s is inside, %s alone outside", algo, p.menu[i].name, p.menu[j].name, c, p.menu[i].name)
					}
				}
			}
		}
	}
}
