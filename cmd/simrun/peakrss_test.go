package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A child's rusage peak (ru_maxrss) is not the child's alone: Go starts a
// child with vfork, sharing the parent's memory until exec, and Linux keeps
// the larger of that memory's peak and the child's own. The peak read for
// simrun was this test process's, whatever simrun used: 623 MiB under the
// race detector, against a 300 MiB ceiling (TestChildPeakIsItsOwn).
//
// So the memory tests start simrun through a go-between: this test binary
// again, run with peakRSSEnv naming a file, which starts the command line it
// is given (from its own small memory), passes its exit code on and writes
// the command's peak to the file.
const peakRSSEnv = "LOCKSIM_TEST_PEAK_RSS_FILE"

// goBetween runs args as a command, as said above, and returns its exit code.
func goBetween(peakFile string, args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, peakRSSEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintf(os.Stderr, "go-between: %v\n", err)
		return 125
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "go-between: no rusage")
		return 125
	}
	if err := os.WriteFile(peakFile, []byte(strconv.FormatInt(ru.Maxrss<<10, 10)), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "go-between: %v\n", err)
		return 125
	}
	if code := cmd.ProcessState.ExitCode(); code >= 0 {
		return code
	}
	return 125 // killed by a signal
}

// measured returns a command that runs name with args through the
// go-between, and a function that reads the command's own peak resident
// memory, in bytes, once it has run.
func measured(t *testing.T, name string, args ...string) (*exec.Cmd, func() int64) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	peakFile := filepath.Join(t.TempDir(), "peak")
	cmd := exec.Command(self, append([]string{name}, args...)...)
	cmd.Env = append(os.Environ(), peakRSSEnv+"="+peakFile)
	return cmd, func() int64 {
		t.Helper()
		data, err := os.ReadFile(peakFile)
		if err != nil {
			t.Fatalf("the go-between wrote no peak: %v", err)
		}
		peak, err := strconv.ParseInt(string(data), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return peak
	}
}

// The go-between reads a child's own peak, where the rusage of a child
// started from this process reads this process's: with 256 MiB held here, a
// shell that exits at once peaks at 256 MiB or more read directly, and far
// below through the go-between.
func TestChildPeakIsItsOwn(t *testing.T) {
	// Mapped and filled by the kernel (MAP_POPULATE), not written from Go:
	// under the race detector a write would add its shadow memory too.
	held, err := syscall.Mmap(-1, 0, 256<<20, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(held)
	direct := exec.Command("sh", "-c", "exit 3")
	_ = direct.Run()
	if direct.ProcessState == nil {
		t.Fatal("sh did not run")
	}
	directPeak := direct.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	cmd, peak := measured(t, "sh", "-c", "exit 3")
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("through the go-between: %v, want exit 3", err)
	}
	own := peak()
	t.Logf("sh's peak read directly %d MiB, through the go-between %d MiB", directPeak>>20, own>>20)
	if directPeak < 256<<20 {
		t.Errorf("read directly, sh's peak is %d MiB: the kernel no longer counts the parent's (then drop the go-between)", directPeak>>20)
	}
	if own > 128<<20 {
		t.Errorf("through the go-between, sh's peak is %d MiB, want under 128", own>>20)
	}
}
