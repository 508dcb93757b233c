package sim

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
)

// The Ledger keeps a run's books as Run does: a trigger fires on its Nth
// occurrence and once only, a node fault's event lasts the node's whole
// time down, and the history stops at MaxEvents with Run's reason.
func TestLedgerKeepsRunsBooks(t *testing.T) {
	cfg := standardConfig(1)
	cfg.MaxEvents = 3
	cfg.Nodes[0].RestartDelay = 200 * time.Millisecond
	cfg.Faults = []Fault{
		{Kind: fault.Pause, Proc: 1, Dur: time.Second, On: Trigger{Point: PointSend, Proc: 1, N: 2, Cmd: "set"}},
		{Kind: fault.NodeRestart, Node: 0, At: 2 * time.Second, Dur: 20 * time.Millisecond},
		{Kind: fault.Crash, Proc: 0, At: time.Second},
	}
	l, err := NewLedger(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Timed(); len(got) != 2 || got[0] != 2 || got[1] != 1 {
		t.Errorf("timed %v, want [2 1]: in order of time", got)
	}
	if l.Config().Faults[0].On.Cmd != "SET" || cfg.Faults[0].On.Cmd != "set" {
		t.Error("the ledger's copy of the plan should say SET, the caller's stay as it was")
	}
	if due := l.Reached(1, PointSend, "get"); len(due) != 0 {
		t.Errorf("a GET reached %v", due)
	}
	if due := l.Reached(1, PointSend, "set"); len(due) != 0 {
		t.Errorf("the first SET reached %v, want the second", due)
	}
	if due := l.Reached(1, PointSend, "Set"); len(due) != 1 || due[0] != 0 {
		t.Errorf("the second SET reached %v, want [0]", due)
	}
	if ev, ok := l.Fire(0); !ok || ev.Proc != 1 || ev.Node != -1 || ev.Dur != time.Second {
		t.Errorf("fire 0: %+v %v", ev, ok)
	}
	if _, ok := l.Fire(0); ok {
		t.Error("a fault fired twice")
	}
	if ev, ok := l.Fire(1); !ok || ev.Node != 0 || ev.Proc != -1 || ev.Dur != 220*time.Millisecond {
		t.Errorf("fire 1: %+v, want node 0 down 220ms", ev)
	}
	for i := range 3 {
		rec, cut := l.Record(Event{Kind: KindProcStart, Proc: i, Node: -1})
		if rec.Proc != i || (cut != "") != (i == 2) {
			t.Fatalf("record %d: %+v, cut %q", i, rec, cut)
		}
		if i == 2 && !strings.Contains(cut, "event limit 3") {
			t.Errorf("cut %q", cut)
		}
	}
	if !l.Write(5, 7) || l.Write(6, 3) || l.Resource() != 5 {
		t.Errorf("a write fenced 3 after one fenced 7 must be refused; value %d", l.Resource())
	}
	l.Count(true)
	l.Count(false)
	l.CountCommand()
	res := l.Result(Time(time.Second), "why")
	if len(res.History.Events) != 3 || res.Stats != (Stats{Acquired: 1, Failed: 1, Commands: 1}) || res.Cut != "why" {
		t.Errorf("result %+v", res)
	}
	if _, err := NewLedger(Config{}); err == nil {
		t.Error("an empty config was taken")
	}
}

// A clock and a latency read outside Run read as Run reads them.
func TestClockAtAndLatencyDraw(t *testing.T) {
	c := ClockSpec{Offset: time.Hour, DriftPPM: 100}
	if got, want := c.At(Time(time.Second), time.Minute), Time(time.Hour+time.Minute+time.Second+100*time.Microsecond); got != want {
		t.Errorf("At = %v, want %v", time.Duration(got), time.Duration(want))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		if d := (Latency{Min: time.Millisecond, Max: 3 * time.Millisecond}).Draw(rng); d < time.Millisecond || d > 3*time.Millisecond {
			t.Fatalf("drew %v outside [1ms, 3ms]", d)
		}
	}
	if d := (Latency{Min: time.Millisecond}).Draw(rng); d != time.Millisecond {
		t.Errorf("a fixed latency drew %v", d)
	}
}
