package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// --version says what the toolchain stamped, and says so when it stamped
// nothing (go run, go test).
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, errOut := simrun(args...)
		if code != exitOK || !strings.HasPrefix(out, "simrun github.com/locksim/locksim ") || strings.Count(out, "\n") != 1 || errOut != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	if code, _, errOut := simrun("version", "now"); code != exitUsage || !strings.HasPrefix(errOut, "simrun version: takes no arguments") {
		t.Errorf("version now: exit %d, stderr %q", code, errOut)
	}
	for _, c := range []struct {
		info debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/locksim/locksim", Version: "(devel)"}},
			"simrun github.com/locksim/locksim (devel), unknown commit (go run stamps none; go build ./cmd/simrun in a git clone does, unless -buildvcs=false), go1.26.8\n"},
		{debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/locksim/locksim", Version: "v0.0.0-20261127035224-df57416dbff6+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "df57416dbff6905d1e2d97c56de514c35729a11a"}, {Key: "vcs.time", Value: "2026-11-27T03:52:24Z"}, {Key: "vcs.modified", Value: "true"}}},
			"simrun github.com/locksim/locksim v0.0.0-20261127035224-df57416dbff6+dirty, commit df57416dbff6905d1e2d97c56de514c35729a11a (2026-11-27T03:52:24Z, with uncommitted changes), go1.26.8\n"},
	} {
		if got := versionText(&c.info); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
