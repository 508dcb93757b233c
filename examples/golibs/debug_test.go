package golibs_test

import (
	"os"
	"testing"

	"github.com/locksim/locksim/examples/golibs/golock"
	"github.com/locksim/locksim/reports"
)

func TestDebugReport(t *testing.T) {
	o, err := golock.Run(t, redsyncLock(0), os.Getenv("SCN"))
	if err != nil {
		t.Fatal(err)
	}
	reports.WriteText(os.Stdout, o)
}
