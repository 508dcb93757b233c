package foreign_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/internal/resp"
	. "github.com/locksim/locksim/sim/foreign"
)

// The protocol (docs/foreign.md) held to its word with a scripted worker:
// this test binary, started as the Python interpreter, reads its script
// from the program file the controller names in init. A script line
// "#> MSG" sends MSG; "#< MSG" reads the next message and fails (exit 3,
// a "worker did not follow" error on the controller's side) unless every
// field MSG gives is the one received. hello, init and ready are the
// worker's own.

// scriptedWorker is the worker's side, run from TestMain.
func scriptedWorker() {
	ctl := os.NewFile(3, "ctl")
	w := bufio.NewWriter(ctl)
	r := bufio.NewReader(ctl)
	send := func(line string) {
		w.WriteString(line + "\n")
		w.Flush()
	}
	read := func() map[string]any {
		line, err := r.ReadString('\n')
		if err != nil {
			os.Exit(0) // the controller closed: the run is over
		}
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			fmt.Fprintf(os.Stderr, "scripted worker: not JSON: %q\n", line)
			os.Exit(3)
		}
		return m
	}
	send(fmt.Sprintf(`{"op":"hello","lang":"script","version":"1","pid":%d}`, os.Getpid()))
	init := read()
	program, _ := init["program"].(string)
	src, err := os.ReadFile(program)
	if err != nil {
		os.Exit(3)
	}
	send(`{"op":"ready","fns":["acquire","release","extend"]}`)
	for _, line := range strings.Split(string(src), "\n") {
		switch {
		case strings.HasPrefix(line, "#> "):
			send(strings.TrimPrefix(line, "#> "))
		case strings.HasPrefix(line, "#< "):
			var want map[string]any
			if json.Unmarshal([]byte(strings.TrimPrefix(line, "#< ")), &want) != nil {
				os.Exit(3)
			}
			got := read()
			for k, v := range want {
				if fmt.Sprint(got[k]) != fmt.Sprint(v) {
					fmt.Fprintf(os.Stderr, "scripted worker: %s: got %v, want %v\n", k, got[k], v)
					os.Exit(3)
				}
			}
		}
	}
	for {
		read() // the script is over: wait for the end
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func command(args ...string) string { return b64(string(resp.AppendCommand(nil, args...))) }

// scripted runs a script as the lock of scenario name ("": one client's
// one round) and returns the outcome's errors and commands.
func scripted(t *testing.T, name, script string) (errs, cmds []string) {
	t.Helper()
	return scriptedIn(t, name, "", "", script)
}

// scriptedIn is scripted with c1's clock (a YAML clock: value) and faults
// (a YAML faults: list) in the one-client scenario.
func scriptedIn(t *testing.T, name, clock, faults, script string) (errs, cmds []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.py")
	if err := os.WriteFile(path, []byte("# locksim: ttl=1s extend=yes\n"+script), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if name == "" { // one client, one round, 10 ms of work
		name = filepath.Join(t.TempDir(), "one-client.yaml")
		one := "name: one-client\nseed: 1\nduration: 10s\nclients:\n  - name: c1\n    iterations: 1\n    work: 10ms\n"
		if strings.Contains(script, `"fn":"extend"`) {
			one += "    renew_every: 4ms\n"
		}
		if clock != "" {
			one += "    clock: " + clock + "\n"
		}
		one += "network:\n  request: 1ms\n  reply: 1ms\n  timeout: 1s\n"
		if faults != "" {
			one += "faults:\n" + faults
		}
		if err := os.WriteFile(name, []byte(one), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := run(t, path, name, Starter{Mode: Fresh, Python: exe})
	for _, e := range o.Result.History.Events {
		if e.Err != "" {
			errs = append(errs, e.Err)
		}
		if e.Kind.String() == "command-result" {
			cmds = append(cmds, strings.Join(e.Args, " ")+" → "+e.Reply.String())
		}
	}
	return errs, cmds
}

// A call, its connection, its commands and replies, a sleep and a timed
// out read, each answered with the worker's clocks: true time moves only
// in a wait, and a wait's timeout is exact on its monotonic clock.
func TestProtocolCall(t *testing.T) {
	script := `#< {"op":"call","fn":"acquire","mono":"0"}
#> {"op":"connect","conn":1,"addr":"127.0.0.1:7001"}
#> {"op":"send","conn":1,"data":"` + command("SET", "lock", "x", "NX", "PX", "1000") + `"}
#> {"op":"wait","conns":[1],"timeout":"5000000000"}
#< {"op":"event","ev":"data","conn":1,"data":"` + b64("+OK\r\n") + `","mono":"2000000"}
#> {"op":"wait","conns":[],"timeout":"3000000"}
#< {"op":"event","ev":"timeout","mono":"5000000"}
#> {"op":"wait","conns":[1],"timeout":"7000000"}
#< {"op":"event","ev":"timeout","mono":"12000000"}
#> {"op":"log","msg":"held"}
#> {"op":"return","held":true,"token":"x"}
#< {"op":"call","fn":"release"}
#> {"op":"send","conn":1,"data":"` + command("DEL", "lock") + `"}
#> {"op":"wait","conns":[1]}
#< {"op":"event","ev":"data","data":"` + b64(":1\r\n") + `"}
#> {"op":"close","conn":1}
#> {"op":"return","held":false}
`
	errs, cmds := scripted(t, "", script)
	want := []string{"SET lock x NX PX 1000 → OK", "DEL lock → (integer) 1"}
	if len(cmds) != 2 || cmds[0] != want[0] || cmds[1] != want[1] {
		t.Errorf("commands %q, want %q first", cmds, want)
	}
	if len(errs) > 0 {
		t.Errorf("the worker followed the protocol, yet: %q", errs)
	}
}

// What breaks the protocol is one line naming it, never a hang.
func TestProtocolBroken(t *testing.T) {
	call := "#< {\"op\":\"call\",\"fn\":\"acquire\"}\n"
	for _, c := range []struct{ script, want string }{
		{call + `#> {"op":"teleport"}`, `unknown message "teleport"`},
		{call + `#> not json`, "a message that is not JSON"},
		{call + `#> {"conn":1}`, "a message with no op"},
		{call + `#> {"op":"connect","conn":2,"addr":"127.0.0.1:7001"}`, "connection 2, want 1 (ids count from 1)"},
		{call + `#> {"op":"connect","conn":1,"addr":"10.0.0.9:6379"}`, "finding: dials 10.0.0.9:6379, which is not a node of the run"},
		{call + `#> {"op":"send","conn":4,"data":"` + b64("x") + `"}`, "send on connection 4, which it never opened"},
		{call + `#> {"op":"wait","conns":[3],"timeout":"1"}`, "wait on connection 3, which it never opened"},
		{call + `#> {"op":"wait","conns":[],"timeout":"soon"}`, `wait timeout "soon": want nanoseconds`},
		{call + `#> {"op":"connect","conn":1,"addr":"127.0.0.1:7001"}` + "\n" + `#> {"op":"send","conn":1,"data":"` + b64("*1\r\n$x\r\n") + `"}`, "connection 1: "},
		{call + `#> {"op":"finding","msg":"reads the moon"}`, "finding: reads the moon"},
		{call + `#> {"op":"raise","error":"ValueError: no"}`, "ValueError: no"},
		{`#< {"op":"call","fn":"extend"}`, "worker: "}, // the worker exits: its script wanted another call
	} {
		errs, _ := scripted(t, "", c.script)
		if !strings.Contains(strings.Join(errs, "\n"), c.want) {
			t.Errorf("%q: errors %q, want one with %q", c.script, errs, c.want)
		}
	}
}

// A client's own clock reaches the worker: its offset on the wall clock
// from the start, a jump on the wall clock only (the monotonic one goes on
// as true time does), drift on both.
func TestProtocolClientClock(t *testing.T) {
	const start = 1767225600 // the simulation's epoch, 2026-01-01, in Unix seconds
	script := `#< {"op":"call","fn":"acquire","wall":"` + fmt.Sprint(start+5) + `000000000","mono":"0"}
#> {"op":"wait","conns":[],"timeout":"2000000"}
#< {"op":"event","ev":"timeout","wall":"` + fmt.Sprint(start+15) + `002000000","mono":"2000000"}
#> {"op":"return","held":false}
`
	jump := "  - kind: clock-jump\n    client: c1\n    by: 10s\n    at: 1ms\n"
	if errs, _ := scriptedIn(t, "", "{offset: 5s}", jump, script); len(errs) > 0 {
		t.Errorf("offset and jump: %q", errs)
	}
	// 1000 ppm fast: a wait of 2 ms on the worker's monotonic clock lasts
	// 1.998002 ms of true time (rounded up to whole ns), which its clocks
	// read as 2 ms and a nanosecond or so more.
	drift := `#< {"op":"call","fn":"acquire","mono":"0"}
#> {"op":"wait","conns":[],"timeout":"2000000"}
#< {"op":"event","ev":"timeout","mono":"2000000"}
#> {"op":"return","held":false}
`
	if errs, _ := scriptedIn(t, "", "{drift_ppm: 1000}", "", drift); len(errs) > 0 {
		t.Errorf("drift: %q", errs)
	}
}

// A watchdog stopped while its extend waits (the work ended first): the
// worker is still inside the extend, so the holder's release first answers
// its open wait and serves it to its end, then calls release, as a client
// with one thread of control would.
func TestProtocolAbandonedExtend(t *testing.T) {
	script := `#< {"op":"call","fn":"acquire"}
#> {"op":"return","held":true,"token":"x"}
#< {"op":"call","fn":"extend","mono":"4000000"}
#> {"op":"wait","conns":[],"timeout":"20000000"}
#< {"op":"event","ev":"timeout","mono":"24000000"}
#> {"op":"return","held":true}
#< {"op":"call","fn":"release","mono":"24000000"}
#> {"op":"return","held":false}
`
	if errs, _ := scripted(t, "", script); len(errs) > 0 {
		t.Errorf("%q", errs)
	}
}
