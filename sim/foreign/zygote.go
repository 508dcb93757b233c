package foreign

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
)

// A zygote is a warm Python interpreter that has imported the shim and the
// Redis client library and waits for fork requests: each request carries
// the socket a new worker will talk on (SCM_RIGHTS), and the zygote forks
// a child that speaks the protocol on it from hello on, as a fresh worker
// does. A fork costs a few milliseconds where a start costs a hundred or
// more. The zygote imports nothing of any program: a program is loaded
// after the fork, with the worker's own seed, as a fresh worker loads it.
// It ends when its control socket closes (this process exits); its
// children end when their sockets do.
type zygote struct {
	mu  sync.Mutex
	c   *net.UnixConn
	cmd *exec.Cmd
}

var zygotes struct {
	sync.Mutex
	by map[string]*zygote // interpreter → its zygote
}

// forkPython forks a worker from interp's zygote, starting the zygote on
// first use (or again, when it died), with theirs as the child's fd 3.
func forkPython(interp, dir string, theirs *os.File) error {
	zygotes.Lock()
	z := zygotes.by[interp]
	if z == nil {
		var err error
		if z, err = startZygote(interp, dir); err != nil {
			zygotes.Unlock()
			return err
		}
		if zygotes.by == nil {
			zygotes.by = map[string]*zygote{}
		}
		zygotes.by[interp] = z
	}
	zygotes.Unlock()
	if err := z.fork(theirs); err != nil {
		zygotes.Lock()
		if zygotes.by[interp] == z {
			delete(zygotes.by, interp) // the next fork starts a new one
		}
		zygotes.Unlock()
		z.c.Close()
		return fmt.Errorf("python zygote: %v", err)
	}
	return nil
}

func startZygote(interp, dir string) (*zygote, error) {
	ours, theirs, err := socketPair()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(interp, filepath.Join(dir, "python", "locksim_worker.py"), "--zygote")
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
