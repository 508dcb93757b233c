package prove

import (
	"errors"
	"fmt"
	"time"

	"github.com/locksim/locksim/locks"
)

// Parameters are what every schedule of a space holds fixed: a result
// holds for these values only, so every result carries them.
type Parameters struct {
	TTL         time.Duration // the lock's TTL parameter
	Lifetime    time.Duration // what the menu scales to: the lock's lifetime (30 s for one that never expires)
	Work        time.Duration // each critical section's hold; no think time between rounds
	Latency     time.Duration // each way, request and reply, every command: no jitter, no loss but the menu's
	LossTimeout time.Duration // how long a client waits on a lost command (the network has no timeout else)
	Key         string
	Retries     int           // the lock's own (locks.Forever: no bound)
	RetrySleep  time.Duration // the lock's own
	Nodes       int
	Seed        uint64
	Duration    time.Duration // each run's cap
}

// MenuChoice is one choice of the menu as a result prints it: its class
// ("" for a delay), its name in schedules, the scenario fault it is and
// that fault's size ("" for one without: a crash, a restart, a lost
// command, whose wait is Parameters.LossTimeout).
type MenuChoice struct {
	Class  string `json:"class,omitempty"`
	Choice string `json:"choice"`
	Fault  string `json:"fault"`
	Size   string `json:"size,omitempty"`
}

// Menu lists the space's choices, sized, in menu order.
func (p *Prover) Menu() []MenuChoice {
	out := make([]MenuChoice, len(p.menu))
	for i, c := range p.menu {
		out[i] = MenuChoice{Class: c.class, Choice: c.name, Fault: c.fault.Kind}
		f := c.fault
		switch k := f.EngineKind(); {
		case k.ShiftsClock() && f.By > 0:
			out[i].Size = "+" + f.By.D().String()
		case k.ShiftsClock():
			out[i].Size = f.By.D().String()
		case k.Pauses() || k.StopsWatchdog():
			out[i].Size = f.For.D().String()
		}
	}
	return out
}

// CheckWork, CheckLatency and CheckTTL bound Options.Work, Latency and TTL
// as the flags that set them (0: prove's own choice).
func CheckWork(d time.Duration) error    { return withinDuration(d, 0, time.Hour) }
func CheckLatency(d time.Duration) error { return withinDuration(d, 0, 10*time.Second) }

// CheckTTL also refuses a TTL the lock cannot take, or one for a lock that
// never expires.
func CheckTTL(a locks.Algorithm, d time.Duration) error {
	if err := withinDuration(d, 0, time.Hour); err != nil || d == 0 {
		return err
	}
	if a.Lifetime(locks.Params{TTL: d}) <= 0 {
		return fmt.Errorf("%s's lock never expires: a TTL changes nothing", a.Name)
	}
	if err := a.Validate(locks.Params{TTL: d}); err != nil {
		return errors.New(err.Error())
	}
	return nil
}

func withinDuration(d, lo, hi time.Duration) error {
	if d < lo || d > hi {
		return fmt.Errorf("%s is not within %s to %s", d, lo, hi)
	}
	return nil
}
