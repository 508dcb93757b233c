package foreign

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
)

// Check compiles the program with its interpreter without running it, so
// that a program that cannot load (a syntax error) or cannot run here (no
// interpreter) is one line at the front door, naming the line, rather than
// a client error in every run.
func (p *Program) Check(s Starter) error {
	interp, err := s.interpreter(p.Lang)
	if err != nil {
		return fmt.Errorf("%s: %w", p.Path, err)
	}
	var cmd *exec.Cmd
	switch p.Lang {
	case Python:
		cmd = exec.Command(interp, "-c", pythonCheck, p.Path)
	case Node:
		cmd = exec.Command(interp, "--check", p.Path)
	case PHP:
		cmd = exec.Command(interp, "-l", p.Path)
	}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &exit):
		return fmt.Errorf("%s: cannot run %s: %v", p.Path, interp, err) // no such interpreter
	}
	return fmt.Errorf("%s: %s", p.Path, compileError(p.Lang, string(out)))
}

// pythonCheck compiles argv[1] and prints a syntax error as one line.
const pythonCheck = `import sys
try:
    compile(open(sys.argv[1], "rb").read(), sys.argv[1], "exec")
except SyntaxError as e:
    print("line %s: %s: %s" % (e.lineno, type(e).__name__, e.msg))
    sys.exit(1)`

var (
	nodeLine = regexp.MustCompile(`^.*:(\d+)$`)
	phpError = regexp.MustCompile(`(?m)^(?:PHP )?(Parse error|Fatal error):\s+(.*) in .* on line (\d+)$`)
)

// compileError is an interpreter's complaint in one line: "line 2:
// SyntaxError: …".
func compileError(lang Lang, out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	switch lang {
	case Node: // "path:N", the source line, a caret, "", "SyntaxError: …"
		n := ""
		if m := nodeLine.FindStringSubmatch(lines[0]); m != nil {
			n = "line " + m[1] + ": "
		}
		for _, l := range lines {
			if strings.Contains(l, "Error: ") && !strings.HasPrefix(l, " ") {
				return n + strings.TrimSpace(l)
			}
		}
	case PHP:
		if m := phpError.FindStringSubmatch(out); m != nil {
			return "line " + m[3] + ": " + m[1] + ": " + m[2]
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}
