package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/locksim/locksim/model"
)

// lostRelease is set-nx-px-token over a network that loses requests: c1's
// release request at 10ms is lost and its key lives out the 1.4s TTL while
// c2 waits. That is a note, not a stale lock.
const lostRelease = `name: lost-release
algorithm: set-nx-px-token
params:
  ttl: 1.4s
seed: 0
duration: 9s
clients:
  - name: c1
    iterations: 3
  - name: c2
    iterations: 1
network:
  request: 0s
  reply: 0s
  loss_request: 0.11
  timeout: 10ms
`

func TestNotesShown(t *testing.T) {
	o := fromYAML(t, "lost-release", lostRelease, model.Options{})
	if o.Verdict.Verdict != model.VerdictSafe || len(o.Verdict.Notes) != 1 {
		t.Fatalf("verdict %s, notes %+v: want safe with one note", o.Verdict.Verdict, o.Verdict.Notes)
	}
	var text bytes.Buffer
	if err := WriteText(&text, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "\n  note         c1  10ms → 1.4s\n") ||
		!strings.Contains(text.String(), "got no reply from node 0") {
		t.Errorf("the text report does not show the note:\n%s", text.String())
	}
	var j bytes.Buffer
	if err := WriteJSON(&j, o); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Notes []struct {
			Processes []string `json:"processes"`
			From, To  string
			Text      string `json:"text"`
		} `json:"notes"`
	}
	if err := json.Unmarshal(j.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Notes) != 1 || got.Notes[0].From != "2026-01-01T00:00:00.01Z" || got.Notes[0].To != "2026-01-01T00:00:01.4Z" {
		t.Errorf("JSON notes %+v", got.Notes)
	}
	// A run without notes still has the field, as an empty list.
	if clean := JSON(builtin(t, "getset-race")); clean.Notes == nil || len(clean.Notes) != 0 {
		t.Errorf("notes of a clean run: %#v, want []", clean.Notes)
	}
}
