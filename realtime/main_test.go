package realtime_test

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// waitingParallel is how many parallel tests run at once here unless
// -test.parallel says: the four on servers of their own (see
// parallelOwnServers) spend their seconds waiting on real time (a lease, a
// sync, a failover's detection), not on a core. At GOMAXPROCS (two here)
// the longest, TestSearchOnStartedServers, could start only after another
// had ended.
const waitingParallel = 4

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(waitingParallel)); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
