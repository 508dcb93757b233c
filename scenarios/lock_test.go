package scenarios

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// withLock is minimal with its algorithm: line replaced by lock ("" for none).
func withLock(lock string) string {
	return strings.Replace(minimal, "algorithm: set-nx-px-token\n", lock, 1)
}

// A scenario may name no lock, or one recorded as an algorithm file or a Go
// lock; such a file round-trips, and preparing it without a lock says so.
func TestLockFields(t *testing.T) {
	for _, c := range []struct {
		lock, words string
	}{
		{"", ""},
		{"algorithm_file: {path: ../locks/my-lock.yaml, sha256: " + sum + "}\n", "algorithm_file: ../locks/my-lock.yaml"},
		{"algorithm_file:\n  path: /abs/my-lock.yaml\n  sha256: " + sum + "\n", "algorithm_file: /abs/my-lock.yaml"},
		{"go_lock: TestMyLock/sub_test\n", "go_lock: TestMyLock/sub_test"},
		{"algorithm: set-nx-px-token\n", "algorithm: set-nx-px-token"},
	} {
		s, err := Parse("t.yaml", []byte(withLock(c.lock)))
		if err != nil {
			t.Errorf("%q: %v", c.lock, err)
			continue
		}
		if got := s.LockWords(); got != c.words {
			t.Errorf("%q: LockWords %q, want %q", c.lock, got, c.words)
		}
		data, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse("back.yaml", data)
		if err != nil || !reflect.DeepEqual(s, back) {
			t.Errorf("%q: round trip: %v\n%s", c.lock, err, data)
		}
		_, err = s.Prepare("")
		if registered := s.Algorithm != ""; registered != (err == nil) {
			t.Errorf("%q: Prepare(\"\"): %v", c.lock, err)
		}
		if err != nil && (!strings.Contains(err.Error(), "tiny names ") || !strings.Contains(err.Error(), "give the lock to run")) {
			t.Errorf("%q: Prepare(\"\"): %v", c.lock, err)
		}
		if _, err := s.Prepare("set-nx-px-token"); err != nil {
			t.Errorf("%q: another lock does not prepare: %v", c.lock, err)
		}
	}
}

// Bad lock fields: one line naming the field.
func TestLockFieldErrors(t *testing.T) {
	for _, c := range []struct {
		lock, want string
	}{
		{"algorithm: set-nx-px-token\ngo_lock: TestX\n", "go_lock: the scenario also has algorithm: it names one lock"},
		{"algorithm_file: {path: a.yaml, sha256: " + sum + "}\ngo_lock: TestX\n", "go_lock: the scenario also has algorithm_file"},
		{"algorithm_file: my-lock.yaml\n", "algorithm_file: want {path: FILE, sha256: HEX}"},
		{"algorithm_file: {sha256: " + sum + "}\n", "algorithm_file.path: required"},
		{"algorithm_file: {path: a.yaml}\n", "algorithm_file.sha256: want the file's sha256"},
		{"algorithm_file: {path: a.yaml, sha256: " + strings.ToUpper(sum) + "}\n", "algorithm_file.sha256: want the file's sha256"},
		{"algorithm_file: {path: a.yaml, sha256: " + sum + ", size: 3}\n", `unknown field "size"`},
		{"algorithm_file: {path: \"a\\nb.yaml\", sha256: " + sum + "}\n", "algorithm_file.path: \"a\\nb.yaml\": want printable text"},
		{"algorithm_file: {path: " + strings.Repeat("a", 4097) + ", sha256: " + sum + "}\n", "algorithm_file.path: at most 4096 bytes"},
		{"go_lock: \"Test\\x01\"\n", "go_lock: \"Test\\x01\": want printable text"},
		{"go_lock: [TestX]\n", "line 3: a list where text belongs"},
	} {
		_, err := Parse("t.yaml", []byte(withLock(c.lock)))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v, want one line containing %q", c.lock, err, c.want)
		}
	}
}

// A fault may name any node when the lock is not known until the run: the
// run gets one node for each it names.
func TestNodeFaultWithoutRegisteredLock(t *testing.T) {
	src := withLock("go_lock: TestX\n") + "faults:\n  - {kind: node-restart, node: 4, at: 1s, for: 1s}\n"
	s, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Prepare("set-nx-px-token")
	if err != nil || len(p.Config.Nodes) != 5 {
		t.Fatalf("prepared %v nodes: %v", p, err)
	}
	if _, err := Parse("t.yaml", []byte(strings.Replace(src, "node: 4", "node: 15", 1))); err == nil || !strings.Contains(err.Error(), "faults[0].node: node 15 does not exist") {
		t.Errorf("node 15: %v", err)
	}
	if _, err := Parse("t.yaml", []byte(withLock("algorithm: set-nx-px-token\n")+"faults:\n  - {kind: node-restart, node: 4, at: 1s, for: 1s}\n")); err == nil {
		t.Error("a one-node algorithm's scenario names node 4 and loads")
	}
}

func TestAlgorithmFilePaths(t *testing.T) {
	f := &AlgorithmFile{Path: "../locks/my-lock.yaml"}
	if got, want := f.In(filepath.Join("out", "x")), filepath.Join("out", "locks", "my-lock.yaml"); got != want {
		t.Errorf("In: %s, want %s", got, want)
	}
	abs, _ := filepath.Abs(filepath.Join("a", "b.yaml"))
	if got := (&AlgorithmFile{Path: filepath.ToSlash(abs)}).In("elsewhere"); got != abs {
		t.Errorf("In of an absolute path: %s, want %s", got, abs)
	}
	if got := RelativePath(filepath.Join("out", "x"), filepath.Join("locks", "my-lock.yaml")); got != "../../locks/my-lock.yaml" {
		t.Errorf("RelativePath: %s", got)
	}
	if got := RelativePath("out", filepath.Join("out", "my-lock.yaml")); got != "my-lock.yaml" {
		t.Errorf("RelativePath: %s", got)
	}
}
