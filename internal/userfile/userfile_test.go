package userfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

func TestLocal(t *testing.T) {
	for rel, ok := range map[string]bool{
		"a.lua": true, "lua/a.lua": true, "lua/../a.lua": true,
		"../a.lua": false, "lua/../../a.lua": false, "/etc/passwd": false, "": false,
	} {
		if err := Local(rel); (err == nil) != ok {
			t.Errorf("Local(%q) = %v, want ok %v", rel, err, ok)
		}
	}
}

func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 11), 0o644); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ path, want string }{
		{fifo, "not a regular file (a named pipe)"},
		{dir, "a folder, not a file"},
		{big, "11 bytes, more than the 10 allowed"},
		{filepath.Join(dir, "none"), "no such file or directory"},
		{"/dev/null", "not a regular file (a device)"},
	}
	for _, c := range cases {
		if _, err := Read(c.path, 10); err == nil || err.Error() != c.want {
			t.Errorf("Read(%s) = %v, want %q", c.path, err, c.want)
		}
	}
	if data, err := Read(small, 10); err != nil || string(data) != "hi" {
		t.Errorf("Read(small) = %q, %v", data, err)
	}
	if data, err := ReadIn(dir, "small", 10); err != nil || string(data) != "hi" {
		t.Errorf("ReadIn(small) = %q, %v", data, err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../small", filepath.Join(sub, "out")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadIn(sub, "out", 10); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("ReadIn through a link out of the folder: %v", err)
	}
}
