package reports

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

func TestTextGolden(t *testing.T) {
	cases := []struct {
		file    string
		outcome func(*testing.T) *judge.Outcome
		opt     TextOptions
	}{
		{"del-race.txt.golden", func(t *testing.T) *judge.Outcome { return builtin(t, "del-race") }, TextOptions{Trace: true}},
		{"del-race-color.txt.golden", func(t *testing.T) *judge.Outcome { return builtin(t, "del-race") }, TextOptions{Color: true}},
		{"crash-holding.txt.golden", crashHolding, TextOptions{Trace: true}},
		{"pause-holding.txt.golden", pauseHolding, TextOptions{Trace: true}},
		{"node-restart.txt.golden", nodeRestart, TextOptions{Trace: true}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteTextWith(&b, c.outcome(t), c.opt); err != nil {
				t.Fatal(err)
			}
			if !c.opt.Color && strings.Contains(b.String(), "\x1b[") {
				t.Error("colour codes without Color")
			}
			golden(t, c.file, b.Bytes())
		})
	}
}

// timelineLines is the timeline section: from its scale line to the line
// before the faults or the trace.
func timelineLines(out string) []string {
	var lines []string
	in := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "timeline"):
			in = true
		case strings.HasPrefix(l, "faults"), strings.HasPrefix(l, "trace"):
			in = false
		}
		if in {
			lines = append(lines, l)
		}
	}
	return lines
}

// Every built-in scenario's timeline fits 100 columns, and every lane is
// drawn.
func TestTimelineFits(t *testing.T) {
	for _, s := range scenarios.Builtins() {
		t.Run(s.Name, func(t *testing.T) {
			o, err := judge.Run(s, "", model.Options{SkipPorcupine: true})
			if err != nil {
				t.Skipf("does not run: %v", err)
			}
			var b bytes.Buffer
			if err := WriteText(&b, o); err != nil {
				t.Fatal(err)
			}
			lines := timelineLines(b.String())
			if len(lines) < 3 {
				t.Fatalf("no timeline:\n%s", b.String())
			}
			for _, l := range lines {
				if n := utf8.RuneCountInString(l); n > 100 {
					t.Errorf("%d columns: %q", n, l)
				}
			}
			for _, name := range o.Result.History.Procs {
				found := false
				for _, l := range lines {
					found = found || strings.HasPrefix(l, name+" ")
				}
				if !found {
					t.Errorf("no lane for %s", name)
				}
			}
		})
	}
}

// Narrower widths still fit: the scale adapts.
func TestTimelineWidth(t *testing.T) {
	o := builtin(t, "del-race")
	for _, w := range []int{60, 80, 100, 140} {
		var b bytes.Buffer
		if err := WriteTextWith(&b, o, TextOptions{Width: w}); err != nil {
			t.Fatal(err)
		}
		for _, l := range timelineLines(b.String())[1:] { // the scale line is prose
			if strings.HasPrefix(l, "key") || strings.HasPrefix(l, " ") {
				continue // legends
			}
			if n := utf8.RuneCountInString(l); n > w {
				t.Errorf("width %d: %d columns: %q", w, n, l)
			}
		}
	}
}

// The timeline shows what happened in del-race: both hold at once, c3
// crashed, and the key's three versions.
func TestTimelineDelRace(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, builtin(t, "del-race")); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lane := func(name string) string {
		for _, l := range timelineLines(out) {
			if strings.HasPrefix(l, name+" ") {
				return l
			}
		}
		t.Fatalf("no lane %s in\n%s", name, out)
		return ""
	}
	if !strings.Contains(lane("c1"), "=") || !strings.Contains(lane("c2"), "=") {
		t.Errorf("c1 and c2 should hold:\n%s", out)
	}
	if !strings.Contains(lane("c3"), "X") {
		t.Errorf("c3 should crash:\n%s", out)
	}
	if n := lane("node0"); !strings.Contains(n, "A") || !strings.Contains(n, "B") || !strings.Contains(n, "C") {
		t.Errorf("node0 should show versions A, B, C: %q", n)
	}
	if !strings.Contains(lane("overlap"), "!") {
		t.Errorf("no overlap window:\n%s", out)
	}
	if !strings.Contains(out, "1 column = ") {
		t.Error("the scale is not stated")
	}
}

func TestTraceEdgeCases(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTextWith(&b, nodeRestart(t), TextOptions{Trace: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"timeout: request lost (never ran)",
		"2s           -            2.1s         SET lock t2 NX PX 10000 · timeout: node down (never ran)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("trace lacks %q", want)
		}
	}
	b.Reset()
	if err := WriteTextWith(&b, crashHolding(t), TextOptions{Trace: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no result: its process crashed") {
		t.Errorf("trace lacks the crashed command:\n%s", b.String())
	}
}

// With a terminal's width, trace lines wrap to it under their command;
// without one (a file, a pipe) they stay whole.
func TestTraceWidth(t *testing.T) {
	o := builtin(t, "fenced-pause")
	var b bytes.Buffer
	if err := WriteTextWith(&b, o, TextOptions{Trace: true, TraceWidth: 100}); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("%d columns at width 100: %q", n, l)
		}
	}
	b.Reset()
	if err := WriteTextWith(&b, o, TextOptions{Trace: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "EVAL [compare-and-delete release script] 1 resource_name de4c02ca… → (integer) 1 · (absent) · ok") {
		t.Errorf("without a width a trace line should stay whole:\n%s", b.String())
	}
}
