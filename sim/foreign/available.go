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
// interpreter, and for Python Debian's python3-redis, for Node the npm
// packages its programs and shim need (the caller's folder's node_modules,
// checked when the program loads), for PHP the uopz extension and Debian's
// predis (php-uopz, php-nrk-predis). Tests skip with its error.
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
		msg := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		if msg == "" {
			msg = err.Error() // it did not start
		}
		return fmt.Errorf("%s cannot run %s lock programs (%s): scripts/foreign-deps.sh installs what they need", interp, lang, msg)
	}
	return nil
}

// phpCheck is what a PHP worker needs: uopz, which replaces the functions
// the shim simulates, and predis (pure PHP, whose sockets the shim can see).
const phpCheck = `if (!extension_loaded("uopz")) { fwrite(STDERR, "no uopz extension\n"); exit(1); }
require "` + PredisAutoload + `";`

// PredisAutoload is Debian's predis (php-nrk-predis), which the PHP
// programs require.
const PredisAutoload = "/usr/share/php/Predis/autoload.php"
