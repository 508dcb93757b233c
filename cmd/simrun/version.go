package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// cmdVersion prints the module's version and the commit it was built
// from, as the Go toolchain stamped them into the binary. 'go run' and
// 'go test' stamp no commit, and a build outside a tagged release gets
// "(devel)" or a pseudo-version: said as it is.
func cmdVersion(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	pos, code, ok := parseFlags(fs, args, stderr)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return fail(stderr, "version", fmt.Errorf("takes no arguments, got %q", pos))
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(stdout, "simrun: no build information in this binary")
		return exitOK
	}
	_, err := io.WriteString(stdout, versionText(info))
	if err != nil {
		return fail(stderr, "version", err)
	}
	return exitOK
}

// versionText is the version line of a build.
func versionText(info *debug.BuildInfo) string {
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	commit := "unknown commit (go run stamps none; go build ./cmd/simrun in a git clone does, unless -buildvcs=false)"
	if rev := settings["vcs.revision"]; rev != "" {
		commit = "commit " + rev
		var notes []string
		if t := settings["vcs.time"]; t != "" {
			notes = append(notes, t)
		}
		if settings["vcs.modified"] == "true" {
			notes = append(notes, "with uncommitted changes")
		}
		if len(notes) > 0 {
			commit += " (" + strings.Join(notes, ", ") + ")"
		}
	}
	return fmt.Sprintf("simrun %s %s, %s, %s\n", info.Main.Path, version, commit, info.GoVersion)
}
