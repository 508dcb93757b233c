package scenarios

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/locksim/locksim/internal/strictyaml"
	"github.com/locksim/locksim/locks"
	"go.yaml.in/yaml/v3"
)

// A scenario names its lock optionally. A built-in or hand-written scenario
// names a registered algorithm (algorithm:), or none and leaves the lock to
// the command line; a counterexample records the lock it ran against, so
// that replaying it runs that lock and no other: algorithm: for a registered
// one, algorithm_file: for an algorithm file (with its sha256, to tell an
// edited file), go_lock: for a Go lock simtest checked (only Go builds it).

// AlgorithmFile is the algorithm file a counterexample ran against.
type AlgorithmFile struct {
	// Path is the file, relative to the scenario file's folder with '/'
	// between names (as written on any system), or absolute.
	Path string `yaml:"path"`
	// SHA256 is the sum algofile.LoadFileSum gives: the hex sha256 of the file
	// followed by the script files it reads.
	SHA256 string `yaml:"sha256"`
}

// UnmarshalYAML refuses anything but {path, sha256} in the user's words:
// a bare path would otherwise be a Go type error.
func (f *AlgorithmFile) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: algorithm_file: want {path: FILE, sha256: HEX}, the algorithm file and its sha256", n.Line)
	}
	type plain AlgorithmFile // without this method
	return strictyaml.DecodeNode(n, (*plain)(f))
}

// In is the file's path for a scenario file in folder dir.
func (f *AlgorithmFile) In(dir string) string {
	p := filepath.FromSlash(f.Path)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// RelativePath is how a scenario file in folder dir names the file at path:
// relative to dir when it can be, with '/' between names.
func RelativePath(dir, path string) string {
	absDir, err1 := filepath.Abs(dir)
	absPath, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(path)
	}
	if rel, err := filepath.Rel(absDir, absPath); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(absPath) // another volume
}

// LockWords names the lock the scenario names, as its file writes it
// ("algorithm_file: my-lock.yaml"), or "" for none.
func (s *Scenario) LockWords() string {
	switch {
	case s.Algorithm != "":
		return "algorithm: " + s.Algorithm
	case s.AlgorithmFile != nil:
		return "algorithm_file: " + s.AlgorithmFile.Path
	case s.GoLock != "":
		return "go_lock: " + s.GoLock
	}
	return ""
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// validateLock checks the lock fields: at most one, each well formed. It
// returns the registered algorithm when the scenario names one (Algorithm
// set), else the zero Algorithm.
func (s *Scenario) validateLock() (algo locks.Algorithm, err error) {
	var named []string
	if s.Algorithm != "" {
		named = append(named, "algorithm")
	}
	if s.AlgorithmFile != nil {
		named = append(named, "algorithm_file")
	}
	if s.GoLock != "" {
		named = append(named, "go_lock")
	}
	if len(named) > 1 {
		return algo, fieldError(named[1], "the scenario also has %s: it names one lock (algorithm, algorithm_file or go_lock), or none", named[0])
	}
	switch {
	case s.Algorithm != "":
		algo, err = locks.Lookup(s.Algorithm)
		if err != nil {
			return algo, fieldError("algorithm", "%v", err)
		}
		return algo, nil
	case s.AlgorithmFile != nil:
		f := s.AlgorithmFile
		if f.Path == "" {
			return algo, fieldError("algorithm_file.path", "required: the algorithm file, relative to this file's folder")
		}
		if err := printable(f.Path, 4096); err != nil {
			return algo, fieldError("algorithm_file.path", "%v", err)
		}
		if !sha256Hex.MatchString(f.SHA256) {
			return algo, fieldError("algorithm_file.sha256", "want the file's sha256: 64 hex digits, lower case")
		}
	case s.GoLock != "":
		if err := printable(s.GoLock, 256); err != nil {
			return algo, fieldError("go_lock", "%v", err)
		}
	}
	return algo, nil
}

// printable refuses what a one-line message cannot show.
func printable(s string, maxLen int) error {
	if len(s) > maxLen {
		return fmt.Errorf("at most %d bytes", maxLen)
	}
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return fmt.Errorf("%q: want printable text", s)
	}
	return nil
}
