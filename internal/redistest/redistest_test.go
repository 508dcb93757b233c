package redistest

import (
	"net"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

func TestAddrSkipsWithoutServer(t *testing.T) {
	// A port that was just free: nothing answers there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	for _, env := range []string{"", dead} {
		var sub *testing.T
		t.Run("env="+env, func(t *testing.T) {
			sub = t
			t.Setenv(EnvVar, env)
			Addr(t)
			t.Error("Addr returned without a server")
		})
		if !sub.Skipped() {
			t.Errorf("%s=%q: not skipped", EnvVar, env)
		}
	}
}

func TestLockFileExcludes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock on windows")
	}
	name := filepath.Join(t.TempDir(), "l")
	f, err := lockFile(name, time.Second, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	// A second open file description conflicts even in the same process.
	if g, err := lockFile(name, 50*time.Millisecond, t.Logf); err == nil {
		unlockFile(g)
		t.Fatal("second lock taken while the first is held")
	}
	unlockFile(f)
	g, err := lockFile(name, time.Second, t.Logf)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	unlockFile(g)
}

func TestAcquireSharedInProcess(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // the lock file goes to os.TempDir
	addr := "test:" + t.Name()
	r1, err := acquire(addr, time.Second, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := acquire(addr, 50*time.Millisecond, t.Logf)
	if err != nil {
		t.Fatalf("second acquire in the same process: %v", err)
	}
	r1()
	r1() // twice is harmless
	if held.n[addr] != 1 {
		t.Errorf("after one release: %d holders, want 1", held.n[addr])
	}
	r2()
	if held.n[addr] != 0 || held.files[addr] != nil {
		t.Errorf("after both releases: %d holders, file %v", held.n[addr], held.files[addr])
	}
}

func TestDialRealServer(t *testing.T) {
	c := Dial(t) // skips without LOCKSIM_REDIS
	r, err := c.Do("ECHO", "locksim")
	if err != nil || string(r) != "$7\r\nlocksim\r\n" {
		t.Errorf("ECHO = %q, %v", r, err)
	}
}
