package judge

import (
	"fmt"
	"strconv"
	"time"

	"github.com/locksim/locksim/locks"
)

// Override is one lock parameter a run used in place of the lock's own:
// a scenario's params: entry that differs from the lock's default. A report
// names each, so that a lock file with a 10 s TTL is never run with a
// scenario's 3 s in silence.
type Override struct {
	Param string `json:"param"` // as a scenario file writes it: ttl, retries, …
	Value string `json:"value"` // the run's
	Own   string `json:"lock_own"`
	// By is who set it: "scenario" (its params:).
	By string `json:"set_by"`
}

// Overrides lists, in the order a scenario file's params: are documented,
// each parameter the run set over the lock's own default. A parameter the
// scenario writes with the lock's own value is not listed.
func (o *Outcome) Overrides() []Override {
	set := o.Scenario.LockParams()
	own := o.Prepared.Algorithm.Defaults
	run := o.Prepared.Params
	var out []Override
	add := func(param string, isSet bool, value, def string) {
		if isSet && value != def {
			out = append(out, Override{Param: param, Value: value, Own: def, By: "scenario"})
		}
	}
	add("key", set.Key != "", strconv.Quote(run.Key), strconv.Quote(own.Key))
	add("ttl", set.TTL != 0, durWord(run.TTL), durWord(own.TTL))
	add("retries", set.Retries != 0, retriesWord(run.Retries), retriesWord(own.Retries))
	add("retry_sleep", set.RetrySleep != 0, durWord(run.RetrySleep), durWord(own.RetrySleep))
	add("resolution", set.Resolution != 0, durWord(run.Resolution), durWord(own.Resolution))
	add("nodes", set.Nodes != 0, nodesWord(run.Nodes), nodesWord(own.Nodes))
	add("token_scope", set.TokenScope != "", scopeWord(run.TokenScope), scopeWord(own.TokenScope))
	return out
}

// String is the override as a report's header says it:
// "ttl 3s (the scenario's; the lock's own is 10s)".
func (v Override) String() string {
	own := "the lock's own is " + v.Own
	if v.Own == "" {
		own = "the lock sets none"
	}
	return fmt.Sprintf("%s %s (the %s's; %s)", v.Param, v.Value, v.By, own)
}

// durWord is a duration as a scenario file writes it; "" for none.
func durWord(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

func retriesWord(n int) string {
	switch n {
	case 0:
		return ""
	case locks.Forever:
		return "-1 (no bound)"
	}
	return strconv.Itoa(n)
}

func nodesWord(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func scopeWord(s string) string {
	if s == "" {
		return locks.TokenTry
	}
	return s
}

// Assumptions says whether the run's scenario lies inside the assumptions of
// the lock it ran (nil), or why not: scenarios.(*Scenario).InsideTTL judged
// against the run's lock and its parameters, not the one the scenario names.
func (o *Outcome) Assumptions() error {
	return o.Scenario.InsideOf(o.Prepared.Algorithm)
}
