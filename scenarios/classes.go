package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// The fault classes are the vocabulary the generator, the matrix's columns,
// simtest and the CLI share; they live with the scenario so that reports
// can name them without importing the search side (explore).

// Fault classes: the kinds of trouble a generated scenario brings.
const (
	ClassNone     = "none"     // no faults: contention only
	ClassCrash    = "crash"    // clients crash (at a time or on an event), some come back fresh
	ClassPause    = "pause"    // clients stop for up to several TTLs (a GC pause, a VM migration)
	ClassSkew     = "skew"     // client and node clocks start apart and drift
	ClassJump     = "jump"     // client and node clocks jump forwards or backwards
	ClassNet      = "net"      // latency, lost requests and replies, client timeouts
	ClassRestart  = "restart"  // nodes restart and lose their data
	ClassFailover = "failover" // nodes have replicas; a primary is lost and a replica promoted
)

// FaultClasses lists every fault class in a stable order.
var FaultClasses = []string{ClassNone, ClassCrash, ClassPause, ClassSkew, ClassJump, ClassNet, ClassRestart, ClassFailover}

// ParseClasses reads a comma-separated list of fault classes ("crash,pause")
// or "all". The result is in the order of FaultClasses, without repeats;
// "none" combined with other classes adds nothing.
func ParseClasses(list string) ([]string, error) {
	want := map[string]bool{}
	for _, c := range strings.Split(list, ",") {
		c = strings.TrimSpace(c)
		switch {
		case c == "all":
			for _, k := range FaultClasses {
				want[k] = true
			}
		case slices.Contains(FaultClasses, c):
			want[c] = true
		default:
			return nil, fmt.Errorf("%q is not a fault class (valid: %s, all)", c, strings.Join(FaultClasses, ", "))
		}
	}
	var out []string
	for _, c := range FaultClasses { // the fixed order, not the map's
		if want[c] && (c != ClassNone || len(want) == 1) {
			out = append(out, c)
		}
	}
	return out, nil
}
