package scenarios

import (
	"os"
	"strings"
	"testing"

	"github.com/locksim/locksim/model"
)

// The scenario file shown in the README must load: docs that match the code.
func TestREADMEExampleLoads(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Skip("README.md not found")
	}
	_, rest, ok := strings.Cut(string(data), "```yaml\n")
	if !ok {
		t.Fatal("README has no yaml example")
	}
	example, _, _ := strings.Cut(rest, "```")
	s, err := Parse("README example", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute("", model.Options{}); err != nil {
		t.Fatal(err)
	}
}
