package reports

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

func TestPrecision(t *testing.T) {
	cases := []struct {
		step sim.Time
		want time.Duration
	}{
		{200 * ms, time.Millisecond}, {ms, time.Millisecond}, {999 * sim.Time(time.Microsecond), 100 * time.Microsecond},
		{50 * sim.Time(time.Microsecond), 10 * time.Microsecond}, {1, 1},
	}
	for _, c := range cases {
		if got := precision(c.step); got != c.want {
			t.Errorf("precision(%v) = %v, want %v", time.Duration(c.step), got, c.want)
		}
	}
}

// A window whose ends read the same is an instant with its length; any
// other is a span.
func TestWindowWords(t *testing.T) {
	w := &eventWriter{round: time.Millisecond}
	cases := []struct {
		from, to sim.Time
		want     string
	}{
		{30197384067, 30197384067, "at 30.197s, for 0s"},
		{5 * ms, 5*ms + 300, "at 5ms, for 300ns"},
		{5 * ms, 5*ms + 400*sim.Time(time.Microsecond), "at 5ms, for 400µs"},
		{ms, 2 * ms, "1ms → 2ms"},
		{5632965943, 6132965943, "5.633s → 6.133s"},
	}
	for _, c := range cases {
		if got := w.window(c.from, c.to); got != c.want {
			t.Errorf("window(%d, %d) = %q, want %q", c.from, c.to, got, c.want)
		}
	}
	if got := (&eventWriter{}).at(5632965943); got != "5.632965943s" {
		t.Errorf("unrounded at = %q", got)
	}
}

// del-race replayed with set-nx-px-token: c3 crashes the instant it takes
// the lock (a hold of 0s), and c2's retries land at nanosecond offsets. The
// report draws the hold as an instant, rounds every time to the
// millisecond, and keeps its columns of times aligned.
func TestTextReadable(t *testing.T) {
	o := builtinWith(t, "del-race", "set-nx-px-token")
	var b bytes.Buffer
	if err := WriteTextWith(&b, o, TextOptions{Trace: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "c3   at 2ms, for 0s  crashed while holding") {
		t.Errorf("the zero-length hold is not an instant:\n%s", out)
	}
	same := regexp.MustCompile(`(\d[\dhmsµn.]*s) → (\d[\dhmsµn.]*s)`)
	for _, m := range same.FindAllStringSubmatch(out, -1) {
		if m[1] == m[2] {
			t.Errorf("a window reads %q: from and to the same", m[0])
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, " TTL ") {
			continue // the key's remaining TTL in the trace is the key's, not a time
		}
		if fine := regexp.MustCompile(`\d\.\d{4,}s`).FindString(line); fine != "" {
			t.Errorf("time %s finer than the millisecond: %q", fine, line)
		}
	}
	// Every event line under faults and writes has its process at one
	// column: after the label's 11 and the time's 12 and a space.
	events := 0
	section := ""
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(line, " ") {
			section = f[0]
		}
		if section != "faults" && section != "writes" || strings.HasPrefix(line, "writes") || line == "" {
			continue
		}
		events++
		if len(line) < 26 || !strings.HasPrefix(line[24:], "c") || line[23] != ' ' {
			t.Errorf("%s line with its process out of column 24: %q", section, line)
		}
	}
	if events < 3 {
		t.Errorf("%d event lines under faults and writes: the test checks nothing", events)
	}
}

// A promoted replica's row shows the key it serves as the node's primary:
// in failover-lost-lock c2's key from 2.001s, in failover-wait c1's key
// through the outage and c2's after it.
func TestPromotedReplicaDrawn(t *testing.T) {
	for _, c := range []struct {
		scenario string
		want     []string // the key's versions' writers the replica row shows after the promotion
	}{
		{"failover-lost-lock", []string{"c2"}},
		{"failover-wait", []string{"c1", "c2"}},
	} {
		o := builtin(t, c.scenario)
		p := newPicture(o)
		var promotedAt sim.Time = -1
		lane := -1
		for _, e := range o.Result.History.Events {
			if e.Kind == sim.KindFault && e.Fault.Promotes() && e.Value > 0 {
				promotedAt, lane = e.At, int(e.Value)
			}
		}
		if lane < 0 {
			t.Fatalf("%s: no replica promoted: the test checks nothing", c.scenario)
		}
		var got []string
		for _, s := range p.nodes[lane].spans {
			if !s.down && s.to > promotedAt {
				got = append(got, p.versions[s.v].by)
			}
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: %s after its promotion shows versions by %v, want %v (spans %+v)",
				c.scenario, p.nodes[lane].name, got, c.want, p.nodes[lane].spans)
		}
	}
}

// The HTML report says the same: the zero-length hold is an instant, and
// its times are rounded.
func TestHTMLReadable(t *testing.T) {
	d := htmlReport(builtinWith(t, "del-race", "set-nx-px-token"))
	found := false
	for _, h := range d.Holds {
		found = found || h.Proc == "c3" && h.When == "at 2ms, for 0s"
		if regexp.MustCompile(`\d\.\d{4,}s`).MatchString(h.When) {
			t.Errorf("hold %+v: a time finer than the millisecond", h)
		}
	}
	if !found {
		t.Errorf("holds %+v: want c3's zero-length hold as an instant", d.Holds)
	}
}
