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
	case !errors.As(err, &exit):
		return fmt.Errorf("%s: cannot run %s: %v", p.Path, interp, err) // no such interpreter
	default:
		return fmt.Errorf("%s: %s", p.Path, compileError(p.Lang, string(out)))
	}
	if p.Lang == Node {
		// A package the program or the shim requires that is not installed
		// (no npm ci yet) would be a client error in every run.
		if out, err := exec.Command(interp, "-e", nodePackages, p.Path).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %s", p.Path, lastLine(string(out), err))
		}
	}
	return nil
}

// nodePackages finds, without loading them, the packages a Node program
// requires by name (require('ioredis') in its text) from its folder, as
// Node will, and the shim's @sinonjs/fake-timers where the shim looks for
// it (resolveFakeTimers in shim/node/locksim.js); it prints the first
// missing one in one line.
const nodePackages = `const path = require("path"), Module = require("module");
const prog = process.argv[1], dir = path.dirname(path.resolve(prog));
const shim = [dir];
if (process.env.LOCKSIM_NODE_MODULES) shim.push(process.env.LOCKSIM_NODE_MODULES);
shim.push(process.cwd());
const wanted = [["@sinonjs/fake-timers", shim, "the locksim shim"]];
const src = require("fs").readFileSync(prog, "utf8");
for (const m of src.matchAll(/\brequire\(\s*['"]([^'"./][^'"]*)['"]\s*\)/g)) {
  if (m[1] !== "locksim" && !Module.isBuiltin(m[1])) wanted.push([m[1], [dir], "it"]);
}
for (const [name, paths, who] of wanted) {
  try { require.resolve(name, { paths }); } catch (e) {
    console.log("cannot find package " + name + ", which " + who + " requires, from " + paths.join(" or ") +
      " (npm ci beside the program, scripts/foreign-deps.sh for the examples, or set LOCKSIM_NODE_MODULES)");
    process.exit(1);
  }
}`

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
