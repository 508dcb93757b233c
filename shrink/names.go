package shrink

import (
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/scenarios"
)

// What the shrinker shares with explore's generator (explore/gen), written
// here so that prove, which shrinks too, needs no generator: the
// generator's tests check that both say the same.

// clientName is how the generator names its i-th client (c1, c2, …); a
// scenario whose clients are named so is renumbered when one goes.
func clientName(i int) string { return "c" + strconv.Itoa(i+1) }

// clientNumber is i for the name clientName(i), 0 for any other name.
func clientNumber(name string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(name, "c"))
	return max(n-1, 0)
}

// QuietLatency is each way's latency of a quiet network, the one the
// shrinker tries in place of a drawn one: the generator's latency when its
// net class is off (a little jitter, no loss).
var QuietLatency = scenarios.Latency{Min: scenarios.Duration(500 * time.Microsecond), Max: scenarios.Duration(2500 * time.Microsecond)}
