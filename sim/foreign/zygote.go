package foreign

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// A zygote is a warm interpreter (Python, or PHP) that has loaded the shim,
// and for Python the Redis client library, and waits for fork requests:
// each request carries the socket a new worker will talk on (SCM_RIGHTS),
// and the zygote forks a child that speaks the protocol on it from hello
// on, as a fresh worker does. A fork costs a few milliseconds where a start
// costs tens (PHP) or a hundred and more (Python). The zygote loads nothing
// of any program: a program is loaded after the fork, with the worker's
// own seed, as a fresh worker loads it. It ends when its control socket
// closes (this process exits); its children end when their sockets do.
type zygote struct {
	mu  sync.Mutex
	c   *net.UnixConn
	cmd *exec.Cmd
}

var zygotes struct {
	sync.Mutex
	by map[string]*zygote // language and interpreter → its zygote
}

// forkWorker forks a lang worker from interp's zygote, starting the zygote
// on first use (or again, when it died), with theirs as the child's
// control socket.
func forkWorker(lang Lang, interp, dir string, theirs *os.File) error {
	key := string(lang) + "\x00" + interp
	zygotes.Lock()
	z := zygotes.by[key]
	if z == nil {
		var err error
		if z, err = startZygote(lang, interp, dir); err != nil {
			zygotes.Unlock()
			return err
		}
		if zygotes.by == nil {
			zygotes.by = map[string]*zygote{}
		}
		zygotes.by[key] = z
	}
	zygotes.Unlock()
	if err := z.fork(theirs); err != nil {
		zygotes.Lock()
		if zygotes.by[key] == z {
			delete(zygotes.by, key) // the next fork starts a new one
		}
		zygotes.Unlock()
		z.c.Close()
		return fmt.Errorf("%s zygote: %v", lang, err)
	}
	return nil
}

func startZygote(lang Lang, interp, dir string) (*zygote, error) {
	ours, theirs, err := socketPair()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(interp, append(shimArgs(lang, dir, false), "--zygote")...)
	cmd.Env = workerEnv(dir)
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	err = cmd.Start()
	theirs.Close()
	if err != nil {
		ours.Close()
		return nil, err
	}
	go func() { _ = cmd.Wait() }()
	return &zygote{c: ours, cmd: cmd}, nil
}

// fork asks for one child on fd.
func (z *zygote) fork(fd *os.File) error {
	z.mu.Lock()
	defer z.mu.Unlock()
	_, _, err := z.c.WriteMsgUnix([]byte{'f'}, syscall.UnixRights(int(fd.Fd())), nil)
	return err
}
