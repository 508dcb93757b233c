package sim

import (
	"strings"
	"testing"
)

// A run whose events carry big strings stops at MaxHistoryBytes, cut, long
// before the event cap: the cap in events alone cannot bound memory.
func TestHistorySizeCap(t *testing.T) {
	big := strings.Repeat("x", 1<<20) // one string, shared by every event
	res, err := oneProc(func(p Proc) (Lease, error) {
		for {
			if _, err := p.Do(0, "SET", "k", big); err != nil {
				return Lease{}, err
			}
		}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "history size limit 512 MiB reached"
	if res.Cut != want {
		t.Fatalf("cut %q, want %q", res.Cut, want)
	}
	// Each SET counts about 3 MiB: its argument in the command and in the
	// result event, and the watched key's value after it. The count is what
	// bounds memory, whether or not the strings are shared.
	if n := len(res.History.Events); n < 300 || n > 400 {
		t.Errorf("%d events before the cut, want about 2 × 512/3", n)
	}
}

// eventBytes counts a script's text once per algorithm, not per EVAL.
func TestEventBytesSkipsScriptText(t *testing.T) {
	script := strings.Repeat("-- comment\n", 1000)
	eval := Event{Args: []string{"EVAL", script, "1", "k"}}
	set := Event{Args: []string{"SET", "k", script}}
	if eventBytes(&eval) >= eventBytes(&set) {
		t.Errorf("EVAL counts %d, SET of the same text %d: the script text should not count", eventBytes(&eval), eventBytes(&set))
	}
}
