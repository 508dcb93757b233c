package scenarios

import (
	"os"
	"strings"
	"testing"
)

// A scenario file without a duration runs for DefaultDuration, as the
// README says.
func TestDefaultDuration(t *testing.T) {
	s, err := Parse("no-duration", []byte("name: x\nalgorithm: set-nx-px-token\nclients: [{name: c1}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Duration.D() != DefaultDuration {
		t.Fatalf("duration %s, want %s", s.Duration.D(), DefaultDuration)
	}
	data, err := os.ReadFile("../docs/scenarios.md")
	if err == nil && !strings.Contains(string(data), "default "+DefaultDuration.String()) {
		t.Errorf("README does not state the default duration %s", DefaultDuration)
	}
}

// docs/development.md's "Adding a fault kind" names the files a kind lives
// in: each must exist and hold its fault-kind table, and every table must
// be named there.
func TestREADMEFaultKindFiles(t *testing.T) {
	data, err := os.ReadFile("../docs/development.md")
	if err != nil {
		t.Skip("README.md not found")
	}
	_, section, ok := strings.Cut(string(data), "### Adding a fault kind")
	if !ok {
		t.Fatal(`README has no "Adding a fault kind" section`)
	}
	section, _, _ = strings.Cut(section, "\n#")
	for _, f := range []struct{ path, table string }{{"fault/fault.go", "specs"},
		{"sim/faultapply.go", "faultApplies"}, {"explore/gen/faultkinds.go", "genFaults"},
		{"realtime/engine/faultkinds.go", "realKinds"}, {"scenarios/faultkinds.go", "outsides"},
	} {
		path := f.path
		if !strings.Contains(section, "`"+path+"`") {
			t.Errorf("the section does not name %s", path)
		}
		src, err := os.ReadFile("../" + path)
		if err != nil {
			t.Errorf("the section names %s: %v", path, err)
			continue
		}
		if !strings.Contains(string(src), "var "+f.table+" = ") {
			t.Errorf("%s does not hold the table %s", path, f.table)
		}
	}
}
