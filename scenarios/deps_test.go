package scenarios

import (
	"os/exec"
	"strings"
	"testing"
)

// The scenario format imports no checker and no run step: a file is read,
// validated and prepared without model or judge, which import it.
func TestFormatImportsNoChecker(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the imports with")
	}
	out, err := exec.Command(goCmd, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch pkg {
		case "github.com/locksim/locksim/model", "github.com/locksim/locksim/judge":
			t.Errorf("scenarios imports %s", pkg)
		}
	}
}
