package searchtest

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

const childEnv = "LOCKSIM_SEARCHTEST_CHILD"

// TestChild is this binary started again by TestStart: it calls Start and
// prints the GOGC it collects at once a collection or two have retuned it.
func TestChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("started by TestStart only")
	}
	Start()
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	for range 5 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	metrics.Read(s)
	fmt.Printf("gogc=%d\n", s[0].Value.Uint64())
}

// TestStart: tests run at the searches' GOGC, benchmarks at Go's default.
func TestStart(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the tuner stays off")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-test.run", "^TestChild$"}, "gogc=400"},
		{[]string{"-test.run", "^TestChild$", "-test.bench", "NoSuchBenchmark"}, "gogc=100"},
	} {
		cmd := exec.Command(os.Args[0], c.args...)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: %v, output %q; want %s", c.args, err, out, c.want)
		}
	}
}
