package scenarios

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/internal/fuzzing"
)

const minimal = `
name: tiny
algorithm: set-nx-px-token
seed: 3
duration: 10s
clients:
  - name: a
    iterations: 2
    work: 10ms
network:
  request: 1ms
  reply: {min: 1ms, max: 3ms}
  timeout: 1s
`

func TestParseMinimal(t *testing.T) {
	s, err := Parse("tiny.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if s.Network.Request.Min != s.Network.Request.Max || s.Network.Reply.Max.D().Milliseconds() != 3 {
		t.Fatalf("latencies not read: %+v", s.Network)
	}
}

func TestBuiltinsRoundTrip(t *testing.T) {
	for _, s := range Builtins() {
		data, err := Marshal(s)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		back, err := Parse(s.Name+".yaml", data)
		if err != nil {
			t.Fatalf("%s: the YAML show prints does not load: %v\n%s", s.Name, err, data)
		}
		if !reflect.DeepEqual(s, back) {
			t.Fatalf("%s: round trip changed the scenario:\n%+v\n%+v", s.Name, s, back)
		}
	}
}

// Every rule names its field; every error is one line.
func TestValidationNamesTheField(t *testing.T) {
	cases := []struct {
		name, edit, want string
	}{
		{"unknown field", "  - name: b\n    clok: {}\n", `unknown field "clok"`},
		{"drift", "  - name: b\n    clock: {drift_ppm: 100001}\n", "clients[1].clock.drift_ppm: must be within ±100000"},
		{"unknown algorithm", "", "algorithm: unknown algorithm"},
		{"bad duration", "  - name: b\n    work: 5\n", `"5" is not a duration`},
		{"duplicate client", "  - name: a\n", `clients[1].name: "a" is also clients[0]`},
		{"negative iterations", "  - name: b\n    iterations: -1\n", "clients[1].iterations: must be within"},
		{"too many iterations", "  - name: b\n    iterations: 99999999999\n", "clients[1].iterations"},
		{"not a number", "  - name: b\n    iterations: lots\n", `"lots" is not a whole number`},
	}
	for _, c := range cases {
		src := minimal + "  - name: placeholder\n"
		src = strings.Replace(src, "  - name: placeholder\n", c.edit, 1)
		if c.name == "unknown algorithm" {
			src = strings.Replace(src, "set-nx-px-token", "no-such-lock", 1)
		}
		src = strings.Replace(src, "network:", "network:", 1)
		// The edit lands in the clients list: move network after it.
		_, err := Parse("t.yaml", []byte(reorder(src)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", c.name, err)
		}
	}
}

// reorder moves the network block to the end so that lines appended after
// it belong to the clients list.
func reorder(src string) string {
	i := strings.Index(src, "network:")
	j := strings.Index(src, "  timeout: 1s\n") + len("  timeout: 1s\n")
	return src[:i] + src[j:] + src[i:j]
}

func TestFaultValidation(t *testing.T) {
	cases := []struct {
		fault, want string
	}{
		{"{kind: explode, client: a}", `faults[0].kind: "explode" is not a fault`},
		{"{kind: pause, client: zz, for: 1s}", `faults[0].client: "zz" is not a client`},
		{"{kind: node-restart, node: 4}", "faults[0].node: node 4 does not exist"},
		{"{kind: node-restart, at: 1s, for: 1s}", "faults[0].node: missing: a node-restart names its node"},
		{"{kind: failover, at: 1s, for: 1s}", "faults[0].node: missing: a failover names its node"},
		{"{kind: crash, client: a, on: {client: a, point: nowhere, n: 1}}", `faults[0].on.point: "nowhere" is not a point`},
		{"{kind: crash, client: a, on: {client: a, point: reply, n: 0}}", "faults[0].on.n: must be within"},
		{"{kind: crash, client: a, at: 1s, on: {client: a, point: reply, n: 1}}", "faults[0]: has both at and on"},
		{"{kind: pause, client: a, by: 1s}", "faults[0].by: only a clock-jump has by"},
		{"{kind: lose-reply, client: a, at: 1s}", "faults[0].on: a lose-reply needs on:"},
		{"{kind: lose-request, client: a, restart_after: 1s, on: {client: a, point: send, n: 1}}", "faults[0].restart_after: only a crash has restart_after"},
		{"{kind: lose-reply, node: 0, on: {client: a, point: send, n: 1}}", "faults[0].node: a lose-reply targets a client"},
		{"{kind: watchdog-pause, node: 0, for: 1s}", "faults[0].node: a watchdog-pause targets a client"},
		{"{kind: watchdog-pause, client: a, by: 1s}", "faults[0].by: only a clock-jump has by"},
		{"{kind: watchdog-pause, client: a, for: -1s}", "faults[0]: for and restart_after must be within"},
	}
	for _, c := range cases {
		_, err := Parse("t.yaml", []byte(minimal+"faults:\n  - "+c.fault+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.fault, err, c.want)
		}
	}
	// A lost command's client needs a timeout: for:, or the network's.
	noTimeout := strings.Replace(minimal, "  timeout: 1s\n", "", 1)
	lost := "faults:\n  - {kind: lose-request, client: a, on: {client: a, point: send, n: 2}}\n"
	if _, err := Parse("t.yaml", []byte(noTimeout+lost)); err == nil || !strings.Contains(err.Error(), "faults[0].for: a lose-request needs for:") {
		t.Errorf("a lost request with no timeout: got %v", err)
	}
	// A watchdog's pause, written as the docs write it, builds the
	// engine's kind with its length.
	dog := minimal + "faults:\n  - {kind: watchdog-pause, client: a, for: 12s, on: {client: a, point: acquired, n: 1}}\n"
	if s, err := Parse("t.yaml", []byte(dog)); err != nil {
		t.Errorf("a watchdog-pause: %v", err)
	} else if p, err := s.Prepare(""); err != nil || p.Config.Faults[0].Kind != fault.WatchdogPause || p.Config.Faults[0].Dur != 12*time.Second {
		t.Errorf("a watchdog-pause prepares as %+v, %v", p, err)
	}
	for _, src := range []string{minimal + lost, noTimeout + strings.Replace(lost, "n: 2}", "n: 2}, for: 300ms", 1)} {
		if _, err := Parse("t.yaml", []byte(src)); err != nil {
			t.Errorf("a lost request with a timeout: %v", err)
		}
	}
}

func TestHostileInput(t *testing.T) {
	big := strings.Repeat("#", MaxFileSize+1)
	bomb := "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
		"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
	for name, src := range map[string]string{
		"empty":      "",
		"too big":    big,
		"not a map":  "- 1\n- 2\n",
		"alias bomb": bomb,
		"tabs":       "name:\t\tx\n\tclients: 1",
		"binary":     "\x00\x01\x02",
	} {
		_, err := Parse(name, []byte(src))
		if err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	fuzzing.ShortMinimize(f)
	f.Add([]byte(minimal))
	for _, lock := range []string{"", "go_lock: TestX\n", "algorithm_file: {path: ../a.yaml, sha256: " + sum + "}\n"} {
		f.Add([]byte(withLock(lock)))
	}
	for _, s := range Builtins() {
		data, err := Marshal(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		// A valid scenario naming a registered algorithm must also prepare
		// without error; one naming none says a lock is needed.
		_, err = s.Prepare("")
		switch {
		case s.Algorithm != "" && err != nil:
			t.Fatalf("valid scenario does not prepare: %v", err)
		case s.Algorithm == "" && (err == nil || !strings.Contains(err.Error(), "give the lock to run")):
			t.Fatalf("a scenario without a registered algorithm prepares: %v", err)
		}
	})
}
