// Package redistest finds the real redis-server that tests compare locksim
// with, and skips those tests, with the reason, when there is none.
//
// The server's address comes from the environment variable LOCKSIM_REDIS
// (host:port). scripts/redis-server.sh starts a throwaway server and prints
// that address; .ci/run does it for CI:
//
//	export LOCKSIM_REDIS=$(scripts/redis-server.sh start 2>/dev/null)
//	go test ./sim/node -run Differential -v
//
// API:
//
//	Addr(t) string      the address; t.Skip when LOCKSIM_REDIS is unset or the
//	                    server does not answer PING within a second
//	Dial(t) *resp.Conn  Addr plus a connection closed when t ends
//
// One server, several test processes: `go test ./...` runs packages in
// parallel, and a test that flushes the server (a node-restart fault) would
// break another package's test. So Addr also takes an exclusive lock shared
// by every process on this machine that uses the same address (a flock on a
// file in os.TempDir), held until t and its subtests end. Inside one process
// the lock is shared, not exclusive: tests in one package run one after the
// other unless they call t.Parallel, and then it is up to them. Call Addr
// from the top-level test (or from each subtest); a server-wide command such
// as FLUSHALL or SCRIPT FLUSH is safe while the lock is held.
package redistest

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/locksim/locksim/internal/resp"
)

// EnvVar names the environment variable that holds the server's address.
const EnvVar = "LOCKSIM_REDIS"

// lockWait bounds how long Addr waits for another test process to finish
// with the server.
const lockWait = 10 * time.Minute

// Addr returns the real server's address, or skips t with the reason.
func Addr(t testing.TB) string {
	t.Helper()
	addr := strings.TrimSpace(os.Getenv(EnvVar))
	if addr == "" {
		t.Skipf("%s is not set: no real Redis to compare with (start one: export %s=$(scripts/redis-server.sh start))", EnvVar, EnvVar)
	}
	if err := ping(addr); err != nil {
		t.Skipf("%s=%s does not answer PING: %v", EnvVar, addr, err)
	}
	release, err := acquire(addr, lockWait, t.Logf)
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(release)
	return addr
}

// Dial returns a connection to the real server (see Addr), closed when t
// ends.
func Dial(t testing.TB) *resp.Conn {
	t.Helper()
	addr := Addr(t)
	c, err := resp.Dial(addr, 5*time.Second)
	if err != nil {
		t.Fatalf("redistest: dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ping(addr string) error {
	c, err := resp.Dial(addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	r, err := c.Do("PING")
	if err != nil {
		return err
	}
	if string(r) != "+PONG\r\n" {
		return &unexpected{string(r)}
	}
	return nil
}

type unexpected struct{ reply string }

func (e *unexpected) Error() string {
	return "replied " + strings.TrimSpace(e.reply) + " instead of PONG"
}

// held counts this process's users of each address's lock file.
var held = struct {
	sync.Mutex
	n     map[string]int
	files map[string]*os.File
}{n: map[string]int{}, files: map[string]*os.File{}}

// acquire takes the machine-wide lock for addr, or joins this process's
// hold on it, and returns the function that lets go.
func acquire(addr string, wait time.Duration, logf func(string, ...any)) (release func(), err error) {
	held.Lock()
	defer held.Unlock()
	if held.n[addr] == 0 {
		name := filepath.Join(os.TempDir(), "locksim-redis-"+strings.NewReplacer(":", "_", "/", "_").Replace(addr)+".lock")
		f, err := lockFile(name, wait, logf)
		if err != nil {
			return nil, err
		}
		held.files[addr] = f
	}
	held.n[addr]++
	var once sync.Once
	return func() {
		once.Do(func() {
			held.Lock()
			defer held.Unlock()
			if held.n[addr]--; held.n[addr] == 0 {
				unlockFile(held.files[addr])
				delete(held.files, addr)
			}
		})
	}, nil
}
