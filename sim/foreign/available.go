package foreign

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
)

var available sync.Map // Lang → error

// Available says whether lang's lock programs can run here: its
// interpreter, and for Python Debian's python3-redis, for Node the npm
// packages its programs and shim need (the caller's folder's node_modules,
// checked when the program loads). Tests skip with its error.
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
	if lang == Node {
		check = []string{"-e", "0"}
	}
	out, err := exec.Command(interp, check...).CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return fmt.Errorf("%s cannot run %s lock programs (%s): scripts/foreign-deps.sh installs what they need", interp, lang, msg)
	}
	return nil
}
