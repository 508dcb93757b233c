//go:build unix

package redistest

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockFile opens name and takes an exclusive flock on it, polling so that
// the wait is bounded and reported.
func lockFile(name string, wait time.Duration, logf func(string, ...any)) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("lock file: %w", err)
	}
	deadline := time.Now().Add(wait)
	logged := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("flock %s: %w", name, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("another test process held %s for over %v", name, wait)
		}
		if !logged {
			logf("redistest: waiting for another test process to finish with the server (%s)", name)
			logged = true
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// unlockFile lets go of the flock; closing the file does that.
func unlockFile(f *os.File) { f.Close() }
