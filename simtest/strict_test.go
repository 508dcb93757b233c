package simtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Replay is strict: a run cut at its event cap that found nothing fails the
// test (an incomplete run is never a pass), even though FailOn has no
// "incomplete".
func TestReplayIncompleteFails(t *testing.T) {
	f := filepath.Join(t.TempDir(), "cut.yaml")
	body := "name: cut\nalgorithm: set-nx-px-token\nseed: 1\nduration: 1h\nmax_events: 200\n" +
		"clients:\n  - {name: c1, iterations: 1000, work: 1ms}\n  - {name: c2, iterations: 1000, work: 1ms}\n"
	if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &Recorder{TB: t}
	o := Replay(rec, builtin(t, "set-nx-px-token"), f)
	if o == nil || o.Verdict.Verdict != "incomplete" {
		t.Fatalf("outcome %v, want an incomplete run", o)
	}
	if !rec.Failed() || !strings.Contains(rec.Message(), "INCOMPLETE (cut: event limit 200 reached)") {
		t.Errorf("Replay of a cut run: failed %v, %q", rec.Failed(), rec.Messages())
	}
}
