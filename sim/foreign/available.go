package foreign

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
)

var available sync.Map // Lang → error

// Available says whether lang's lock programs can run here: its
// interpreter, and for Python Debian's python3-redis, for PHP the uopz
// extension and Debian's predis (php-uopz, php-nrk-predis). A Node
// program's packages are its own folder's: Runnable checks them.
func Available(lang Lang) error {
	if v, ok := available.Load(lang); ok {
		err, _ := v.(error)
		return err
	}
	err := probe(lang)
	available.Store(lang, err)
	return err
}

func probe(lang Lang) error {
	interp, err := Interpreter(lang)
	if err != nil {
		return err
	}
	check := []string{"-c", "import redis"}
	switch lang {
	case Node:
		check = []string{"-e", "0"}
	case PHP:
		check = slices.Concat(phpFlags, []string{"-r", phpCheck})
	}
	out, err := exec.Command(interp, check...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s cannot run %s lock programs (%s): scripts/foreign-deps.sh installs what they need", interp, lang, lastLine(string(out), err))
	}
	return nil
}

// lastLine is the last line of what a failed command printed, or its error
// when it printed nothing (it did not start).
func lastLine(out string, err error) string {
	msg := strings.TrimSpace(out)
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	if msg == "" {
		msg = err.Error()
	}
	return msg
}

var runnable sync.Map // path → error

// Runnable says whether the lock program at path can run here: its
// language is Available, and the program passes Check (for Node, the
// packages it and the shim require are installed: npm ci). Tests of a
// program skip with its error.
func Runnable(path string) error {
	if v, ok := runnable.Load(path); ok {
		err, _ := v.(error)
		return err
	}
	err := func() error {
		prog, err := Load(path)
		if err != nil {
			return err
		}
		if err := Available(prog.Lang); err != nil {
			return err
		}
		return prog.Check(Starter{})
	}()
	runnable.Store(path, err)
	return err
}

// phpCheck is what a PHP worker needs: uopz, which replaces the functions
// the shim simulates, pcntl and sockets, with which the zygote forks
// workers (zygote.go; Debian's php-cli has both), and predis (pure PHP,
// whose sockets the shim can see).
const phpCheck = `foreach (["uopz", "pcntl", "sockets"] as $x) { if (!extension_loaded($x)) { fwrite(STDERR, "no $x extension\n"); exit(1); } }
require "` + PredisAutoload + `";`

// PredisAutoload is Debian's predis (php-nrk-predis), which the PHP
// programs require.
const PredisAutoload = "/usr/share/php/Predis/autoload.php"
