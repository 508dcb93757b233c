package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/locksim/locksim/sim"
)

// verdictLine is the text report's verdict line.
func verdictLine(t *testing.T, text string) string {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "verdict ") {
			return l
		}
	}
	t.Fatalf("no verdict line in:\n%s", text)
	return ""
}

// The verdict line and the JSON say which safety an unsafe run broke, and
// that no fault touched the lock when none did (here made so by hand: the
// engine's classing of faults is tested in sim).
func TestVerdictLineSaysWhatBroke(t *testing.T) {
	untouched := []sim.FaultUse{{Fired: true, Why: "node2 never served this lock"}, {Why: "c1 had finished"}}
	for _, c := range []struct {
		scenario string
		vacuous  bool
		line     string
		broke    string
	}{
		// A fenced lock under a long pause: two holders, the stale write refused.
		{"fenced-pause", false, "verdict    UNSAFE (as expected) — overlap, resource safe", "overlap, resource safe"},
		// The same pause without fencing: the counter lost c2's write.
		{"token-pause", false, "verdict    UNSAFE (as expected) — lost update", "lost update"},
		{"fenced-pause", true, "verdict    UNSAFE (as expected) — overlap, resource safe; no fault touched the lock", "overlap, resource safe"},
		{"token-scope-retry", false, "verdict    SAFE (as expected)", ""},
		{"token-scope-retry", true, "verdict    SAFE (as expected) — but no fault touched the lock", ""},
		{"crash-deadlock", true, "verdict    STUCK (as expected) — no fault touched the lock", ""},
	} {
		o := builtin(t, c.scenario)
		if c.vacuous {
			// token-scope-retry's network loses replies: none lost here.
			o.Result.Faults, o.Result.Unanswered = untouched, 0
		}
		var text, js bytes.Buffer
		if err := WriteText(&text, o); err != nil {
			t.Fatal(err)
		}
		if got := verdictLine(t, text.String()); got != c.line {
			t.Errorf("%s (vacuous %v): %q, want %q", c.scenario, c.vacuous, got, c.line)
		}
		_, want, _ := strings.Cut(c.line, " — ")
		if says := htmlReport(o).Says; says != want {
			t.Errorf("%s (vacuous %v): the HTML says %q after the verdict, want %q", c.scenario, c.vacuous, says, want)
		}
		if err := WriteJSON(&js, o); err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(js.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		broke, hasBroke := got["safety_broken"]
		if (c.broke == "") == hasBroke || (hasBroke && broke != c.broke) {
			t.Errorf("%s: safety_broken %v (present %v), want %q", c.scenario, broke, hasBroke, c.broke)
		}
		if v, has := got["vacuous"]; has != c.vacuous || (has && v != true) {
			t.Errorf("%s: vacuous %v (present %v), want %v", c.scenario, v, has, c.vacuous)
		}
	}
}

// A fault that acted makes the run not vacuous, whatever the others did.
func TestOneActingFaultIsNotVacuous(t *testing.T) {
	o := builtin(t, "token-scope-retry")
	o.Result.Faults = []sim.FaultUse{{Fired: true, Why: "node2 never served this lock"}, {Fired: true, Acted: true}}
	var text bytes.Buffer
	if err := WriteText(&text, o); err != nil {
		t.Fatal(err)
	}
	if got := verdictLine(t, text.String()); got != "verdict    SAFE (as expected)" {
		t.Errorf("%q", got)
	}
	if JSON(o).Vacuous {
		t.Error("JSON: vacuous")
	}
}

// A fault that touched nothing is one line under the verdict: its time and
// the note's text, not a window of one instant with nobody named. A note
// with a window keeps its two lines.
func TestUntouchedFaultIsOneLine(t *testing.T) {
	o := builtinWith(t, "redlock-node-restart", "set-nx-px-token")
	var text bytes.Buffer
	if err := WriteText(&text, o); err != nil {
		t.Fatal(err)
	}
	want := "  note         at 2ms: faults[2] (node-restart node2): node2 never served this lock\n"
	if !strings.Contains(text.String(), want) {
		t.Errorf("no line %q in:\n%s", want, text.String())
	}
	if strings.Contains(text.String(), "0s → 0s") {
		t.Errorf("an instant note drawn as a window:\n%s", text.String())
	}
}
