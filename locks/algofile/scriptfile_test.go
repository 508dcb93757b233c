package algofile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// script_file resolves inside the algorithm file's folder; anything else is
// refused with one line, and no error shows a script file's text.
func TestScriptFileStaysInItsFolder(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "algo")
	must(t, os.MkdirAll(filepath.Join(dir, "lua"), 0o755))
	must(t, os.WriteFile(filepath.Join(top, "secret.txt"), []byte("password hunter2\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "lua", "ok.lua"), []byte("return redis.call('DEL', KEYS[1])"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "lua", "bad.lua"), []byte("local x = 1\nreturn x hunter2\n"), 0o644))
	must(t, os.Symlink(filepath.Join(top, "secret.txt"), filepath.Join(dir, "link.lua")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo.lua"), 0o644))
	cases := []struct{ path, want string }{
		{"lua/ok.lua", ""},
		{"lua/../lua/ok.lua", ""},
		{"../secret.txt", `release.script_file: "../secret.txt": leaves the algorithm file's folder: give a path inside it`},
		{"lua/../../secret.txt", `leaves the algorithm file's folder`},
		{filepath.Join(top, "secret.txt"), `release.script_file: "` + filepath.Join(top, "secret.txt") + `": an absolute path: give a path inside the algorithm file's folder`},
		{"link.lua", `release.script_file: link.lua: leaves the algorithm file's folder (a symbolic link): give a path inside it`},
		{"fifo.lua", `release.script_file: fifo.lua: not a regular file (a named pipe)`},
		{"lua", `release.script_file: lua: a folder, not a file`},
		{"lua/bad.lua", `release.script_file: lua/bad.lua:2: syntax error`},
	}
	for _, c := range cases {
		src := strings.Replace(minimal, "  command: [DEL, \"{key}\"]", "  script_file: "+c.path+"\n  keys: [\"{key}\"]", 1)
		f := filepath.Join(dir, "a.yaml")
		must(t, os.WriteFile(f, []byte(src), 0o644))
		_, err := LoadFile(f)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.path, err)
		case c.want == "":
		case err == nil:
			t.Errorf("%s: loaded, want %q", c.path, c.want)
		case !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "\n"):
			t.Errorf("%s:\n got %q\nwant one line with %q and no file content", c.path, err, c.want)
		}
	}
}

// A script: | block indented with tabs says what to do.
func TestTabIndentedScriptSaysWhatToDo(t *testing.T) {
	src := "name: tabs\nkey: k\nttl: 30s\nacquire:\n  script: |\n\tlocal x = 1\n\treturn 1\n  success: ok\nrelease:\n  command: [DEL, \"{key}\"]\n"
	_, err := ParseFile("a.yaml", []byte(src), nil)
	want := "a.yaml: line 5: found a tab character where an indentation space is expected: " +
		"indent the script: | block with spaces, or move the script to a .lua file and name it in script_file"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
