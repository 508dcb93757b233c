package algofile

import (
	"fmt"
	"regexp"
	"strings"
)

// quoted is a token or name a Lua compiler error quotes from the script.
var quoted = regexp.MustCompile(`\s*near '.*'$|'[^']*'`)

// withoutContent is a script file's compile error with only its name, line
// and the kind of error: "lock.lua:5: syntax error". A script file's text is
// never echoed: an error that quoted its tokens would print whatever file
// script_file named to whoever ran the algorithm file. "near <eof>" quotes
// nothing and stays.
func withoutContent(msg string) string {
	return strings.TrimSpace(quoted.ReplaceAllString(msg, ""))
}

// tabHint says what to do when YAML refuses a tab: scripts copied from Go
// sources are indented with tabs, and a script: | block cannot hold them.
func tabHint(err error) error {
	if !strings.Contains(err.Error(), "found a tab character") {
		return err
	}
	return fmt.Errorf("%w: indent the script: | block with spaces, or move the script to a .lua file and name it in script_file", err)
}
