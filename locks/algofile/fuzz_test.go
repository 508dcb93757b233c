package algofile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/internal/fuzzing"
	"github.com/locksim/locksim/locks"
)

// FuzzParseFile: no algorithm file, however hostile, panics the loader, and
// every error is one line naming the file. The examples are the seed corpus.
func FuzzParseFile(f *testing.F) {
	fuzzing.ShortMinimize(f)
	paths, _ := filepath.Glob("../../examples/*.yaml")
	if len(paths) == 0 {
		f.Fatal("no example files to seed from")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(minimal))
	read := func(path string) ([]byte, error) {
		if strings.Contains(path, "bad") {
			return []byte("if then"), nil
		}
		return os.ReadFile(filepath.Join("../../examples", filepath.Clean("/"+path)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseFile("f.yaml", data, read)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "f.yaml: ") || strings.ContainsAny(msg, "\r\n") {
				t.Fatalf("error is not one line naming the file: %q", msg)
			}
			return
		}
		if a.New == nil || a.Defaults.TTL <= 0 || a.Defaults.Key == "" || a.Lifetime(locks.Params{}) < 0 {
			t.Fatalf("accepted an algorithm it cannot run: %+v", a)
		}
	})
}
