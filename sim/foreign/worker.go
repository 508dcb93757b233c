package foreign

import (
	"bufio"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

//go:embed shim
var shims embed.FS

// Mode is how a worker starts.
type Mode uint8

const (
	// Forked: a Python worker is forked from a warm interpreter that has
	// loaded the shim and the client library, a PHP worker from one that
	// has compiled the shim (zygote.go); a Node worker that ended
	// its last run at rest is reset and serves the next (reuse).
	Forked Mode = iota
	// Fresh: a new interpreter for every worker.
	Fresh
)

func (m Mode) String() string {
	if m == Fresh {
		return "fresh"
	}
	return "forked"
}

// Starter starts workers: which interpreters, and how. The zero Starter
// forks Python workers and finds the interpreters itself (Interpreter).
type Starter struct {
	Mode Mode
	// Python, Node and PHP are the interpreters; "" finds them
	// (Interpreter).
	Python, Node, PHP string
}

// Interpreter is the program that runs lang's workers: $LOCKSIM_PYTHON or
// Debian's /usr/bin/python3 (where python3-redis is installed) or python3
// on the PATH; $LOCKSIM_NODE or node on the PATH; $LOCKSIM_PHP or php on
// the PATH.
func Interpreter(lang Lang) (string, error) {
	env, deb, name := "LOCKSIM_PYTHON", "/usr/bin/python3", "python3"
	switch lang {
	case Node:
		env, deb, name = "LOCKSIM_NODE", "", "node"
	case PHP:
		env, deb, name = "LOCKSIM_PHP", "", "php"
	}
	if v := os.Getenv(env); v != "" {
		return v, nil
	}
	if deb != "" {
		if _, err := os.Stat(deb); err == nil {
			return deb, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("no %s to run %s lock programs (scripts/foreign-deps.sh installs it; $%s names another)", name, lang, env)
	}
	return p, nil
}

func (s Starter) interpreter(lang Lang) (string, error) {
	if lang == Node && s.Node != "" {
		return s.Node, nil
	}
	if lang == Python && s.Python != "" {
		return s.Python, nil
	}
	if lang == PHP && s.PHP != "" {
		return s.PHP, nil
	}
	return Interpreter(lang)
}

// hostTimeout is how long the controller waits for a worker's next
// message, in host time: a worker that sends nothing that long spins or
// blocks outside its shim. It decides nothing in a run that works.
var hostTimeout = 30 * time.Second

// worker is one running worker process, as the controller talks to it.
type worker struct {
	c    *net.UnixConn
	r    *bufio.Reader
	pid  int
	lang string
	ver  string
	// key is the interpreter and environment a Node worker started with:
	// a reset one serves only starts of the same key. A resettable one
	// was started with --reset; program is the SHA-256 of the program it
	// runs.
	key        string
	resettable bool
	program    string
	wait       func() // reaps a fresh worker; nil for a forked one
	dead       bool
}

// start starts a worker for prog's language and reads its hello.
func (s Starter) start(prog *Program) (*worker, error) {
	lang := prog.Lang
	interp, err := s.interpreter(lang)
	if err != nil {
		return nil, err
	}
	dir, err := shimDir()
	if err != nil {
		return nil, err
	}
	var key string // only a resettable worker has one
	resettable := lang == Node && s.Mode == Forked && !refused(prog)
	if resettable {
		key = interp + "\x00" + strings.Join(workerEnv(dir), "\x00")
		if w := takeReset(key); w != nil {
			w.program = prog.SHA256
			return w, nil
		}
	}
	ours, theirs, err := socketPair()
	if err != nil {
		return nil, err
	}
	w := &worker{c: ours, r: bufio.NewReaderSize(ours, 64<<10), key: key, resettable: resettable, program: prog.SHA256}
	if (lang == Python || lang == PHP) && s.Mode == Forked {
		err = forkWorker(lang, interp, dir, theirs)
		theirs.Close()
	} else {
		err = w.exec(interp, dir, lang, theirs)
	}
	if err != nil {
		ours.Close()
		return nil, err
	}
	hello, err := w.read()
	if err != nil {
		w.kill()
		return nil, fmt.Errorf("%s worker did not start: %v", lang, err)
	}
	if hello.Op != "hello" || hello.PID <= 0 {
		w.kill()
		return nil, fmt.Errorf("%s worker: first message %q, want hello with its pid", lang, hello.Op)
	}
	w.pid, w.lang, w.ver = hello.PID, hello.Lang, hello.Version
	return w, nil
}

// exec starts a fresh interpreter on the shim's entry (shimArgs), with
// fd 3 theirs.
func (w *worker) exec(interp, dir string, lang Lang, theirs *os.File) error {
	cmd := exec.Command(interp, shimArgs(lang, dir, w.resettable)...)
	cmd.Env = workerEnv(dir)
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	err := cmd.Start()
	theirs.Close()
	if err != nil {
		return err
	}
	w.wait = func() { _ = cmd.Wait() }
	return nil
}

// shimArgs are the interpreter's arguments that run lang's shim: a
// resettable Node worker takes --reset (it saves the process's state before
// its first init, to put it back on reset).
func shimArgs(lang Lang, dir string, resettable bool) []string {
	switch lang {
	case Node:
		if resettable {
			return []string{filepath.Join(dir, "node", "locksim.js"), "--reset"}
		}
		return []string{filepath.Join(dir, "node", "locksim.js")}
	case PHP:
		return slices.Concat(phpFlags, []string{filepath.Join(dir, "php", "locksim_worker.php")}) // a copy: explore starts workers at once
	}
	return []string{filepath.Join(dir, "python", "locksim_worker.py")}
}

// phpFlags are a PHP worker's settings: uopz lets exit() end the process
// (a finding's exit), opcache stays off (it would compile the program's
// calls before the shim replaced their functions), and PHP's warnings go
// to stderr.
var phpFlags = []string{"-d", "uopz.exit=1", "-d", "opcache.enable_cli=0", "-d", "display_errors=stderr", "-d", "log_errors=0", "-d", "error_reporting=-1"}

// workerEnv is a worker's environment: the PATH and HOME, where a Node
// shim finds its packages, and what makes the interpreter deterministic (a
// fixed hash seed, no bytecode written).
func workerEnv(dir string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"PYTHONHASHSEED=0",
		"PYTHONDONTWRITEBYTECODE=1",
		"PYTHONPATH=" + filepath.Join(dir, "python"),
		"PYTHONUNBUFFERED=1",
		"LANG=C.UTF-8",
		"TZ=UTC",
	}
	if v := os.Getenv("LOCKSIM_NODE_MODULES"); v != "" {
		env = append(env, "LOCKSIM_NODE_MODULES="+v) // where a Node shim finds fake-timers
	}
	return env
}

// socketPair is a connected pair of Unix stream sockets: ours for the
// controller (in Go's poller), theirs to hand to a worker as fd 3
// (blocking: the worker blocks in its reads).
func socketPair() (*net.UnixConn, *os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	f := os.NewFile(uintptr(fds[0]), "worker")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		syscall.Close(fds[1])
		return nil, nil, err
	}
	return c.(*net.UnixConn), os.NewFile(uintptr(fds[1]), "worker-end"), nil
}

// send writes one message.
func (w *worker) send(m *message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_ = w.c.SetWriteDeadline(time.Now().Add(hostTimeout))
	_, err = w.c.Write(append(b, '\n'))
	return err
}

// read reads the worker's next message, waiting up to hostTimeout.
func (w *worker) read() (message, error) {
	_ = w.c.SetReadDeadline(time.Now().Add(hostTimeout))
	m, err := readMessage(w.r)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("sent nothing for %s of host time: it spins or blocks outside the shim (a busy loop that reads no clock, a read of a real file or socket)", hostTimeout)
	}
	return m, err
}

// kill ends the worker: SIGKILL, as a crash.
func (w *worker) kill() {
	if w.dead {
		return
	}
	w.dead = true
	if w.pid > 0 {
		_ = syscall.Kill(w.pid, syscall.SIGKILL)
	}
	w.c.Close()
	if w.wait != nil {
		go w.wait() // reaped off the run's goroutine
	}
}

// shimDir is a folder holding the shims (embedded in the binary), written
// once per content under the user's cache (or the temporary) folder.
var shimDir = sync.OnceValues(writeShims)

func writeShims() (string, error) {
	sub, err := fs.Sub(shims, "shim")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_ = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(sub, p)
			fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
			h.Write(b)
		}
		return nil
	})
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "locksim", "shim-"+hex.EncodeToString(h.Sum(nil))[:16])
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil {
		return dir, nil
	}
	// Written beside it and renamed into place, so that another process
	// never runs a half-written shim.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "shim-tmp-")
	if err != nil {
		return "", err
	}
	if err := os.CopyFS(tmp, sub); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	_ = os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644)
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, serr := os.Stat(done); serr != nil {
			return "", err
		}
		// another process wrote it first
	}
	return dir, nil
}
