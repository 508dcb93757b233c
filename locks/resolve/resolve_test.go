package resolve

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/locksim/locksim/scenarios"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

func TestOwn(t *testing.T) {
	dir := t.TempDir()
	body, err := os.ReadFile("../../examples/set-nx-px-token.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lock.yaml"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := File(filepath.Join(dir, "lock.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	own, err := Own(&scenarios.Scenario{AlgorithmFile: &scenarios.AlgorithmFile{Path: "lock.yaml", SHA256: f.SHA256}}, dir)
	if err != nil || !own.Own || own.Algorithm.Name != f.Algorithm.Name {
		t.Errorf("Own of the recorded file = %+v, %v", own, err)
	}
	var changed *ChangedError
	if _, err := Own(&scenarios.Scenario{AlgorithmFile: &scenarios.AlgorithmFile{Path: "lock.yaml", SHA256: "00"}}, dir); !errors.As(err, &changed) || changed.Got != f.SHA256 {
		t.Errorf("Own of a changed file: %v, want a ChangedError", err)
	}
	if _, err := Own(&scenarios.Scenario{AlgorithmFile: &scenarios.AlgorithmFile{Path: "gone.yaml", SHA256: f.SHA256}}, dir); !errors.Is(err, ErrMoved) {
		t.Errorf("Own of a missing file: %v, want ErrMoved", err)
	}
	if _, err := Own(&scenarios.Scenario{GoLock: "TestMine"}, dir); !errors.Is(err, ErrGoLock) {
		t.Errorf("Own of a go_lock: %v, want ErrGoLock", err)
	}
	if _, err := Own(&scenarios.Scenario{}, dir); !errors.Is(err, ErrNoLock) {
		t.Errorf("Own of no lock: %v, want ErrNoLock", err)
	}
	if l, err := Own(&scenarios.Scenario{Algorithm: "setnx-del"}, dir); err != nil || !l.Own || l.Algorithm.New == nil {
		t.Errorf("Own of algorithm: setnx-del = %+v, %v", l, err)
	}
}
