package realtime_test

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// waitingParallel is how many parallel tests run at once here unless
// -test.parallel says: the tests on servers of their own (see
// parallelOwnServers) spend their seconds waiting on real time (a lease, a
// sync, a failover's detection), not on a core, so GOMAXPROCS of them at a
// time left the package's wall time the sum of the longest two.
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
