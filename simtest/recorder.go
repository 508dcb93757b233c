package simtest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Recorder is a testing.TB that records failures instead of failing: run
// Check against one to assert that a lock known to be broken is caught,
// without failing the real test. Log lines are kept (Logs) and logged;
// everything else (Name, TempDir, …) goes to the embedded TB.
//
//	rec := &simtest.Recorder{TB: t}
//	simtest.Check(rec, newBrokenLock, simtest.Faults("pause"))
//	if !rec.Failed() { t.Fatal("not caught") }
type Recorder struct {
	testing.TB
	mu     sync.Mutex
	msgs   []string
	logs   []string
	failed bool
}

// Logf records the line, then logs it on the embedded TB: Check logs its
// outside answer so.
func (r *Recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
	r.TB.Helper()
	r.TB.Logf(format, args...)
}

// Logs is every line logged with Logf, one a line.
func (r *Recorder) Logs() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.logs, "\n")
}

func (r *Recorder) record(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	if msg != "" {
		r.msgs = append(r.msgs, msg)
	}
}

func (r *Recorder) Helper()                           {}
func (r *Recorder) Error(args ...any)                 { r.record(fmt.Sprint(args...)) }
func (r *Recorder) Errorf(format string, args ...any) { r.record(fmt.Sprintf(format, args...)) }
func (r *Recorder) Fail()                             { r.record("") }

// Fatal, Fatalf and FailNow record and return: the caller goes on, so they
// suit code that returns right after, as Check and Replay do.
func (r *Recorder) Fatal(args ...any)                 { r.Error(args...) }
func (r *Recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *Recorder) FailNow()                          { r.Fail() }

// Failed reports whether anything failed.
func (r *Recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// Messages are the failure messages, in order.
func (r *Recorder) Messages() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.msgs...)
}

// Message is every failure message, joined by blank lines.
func (r *Recorder) Message() string { return strings.Join(r.Messages(), "\n\n") }
