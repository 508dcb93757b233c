package judge_test

import (
	"os"
	"strings"
	"testing"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
)

// The scenario file shown in docs/scenarios.md must load: docs that match the code.
func TestREADMEExampleLoads(t *testing.T) {
	data, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Skip("README.md not found")
	}
	_, rest, ok := strings.Cut(string(data), "```yaml\n")
	if !ok {
		t.Fatal("README has no yaml example")
	}
	example, _, _ := strings.Cut(rest, "```")
	s, err := scenarios.Parse("README example", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	o, err := judge.Run(s, "", model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Expect == "" || o.Verdict.Verdict != s.Expect {
		t.Fatalf("the README example expects %q and gets %q", s.Expect, o.Verdict.Verdict)
	}
}
