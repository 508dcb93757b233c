package sim

import (
	"github.com/locksim/locksim/sim/node"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
)

const hashAcquire = `redis.call('HINCRBY', KEYS[1], ARGV[1], 1); redis.call('PEXPIRE', KEYS[1], ARGV[2]); return 1`

// The engine records, after every command, the watched key's type, drawn
// content and whether the command began a new version of it.
func TestCommandEventsRecordVersions(t *testing.T) {
	type cmd struct {
		sleep time.Duration // before the command
		args  []string
		fresh bool
	}
	tests := []struct {
		name  string
		cmds  []cmd
		typ   KeyType
		value string // after the last command
	}{
		{"a string lock", []cmd{
			{0, []string{"SET", "k", "tok", "NX", "PX", "100"}, true},
			{0, []string{"GET", "k"}, false},
			{0, []string{"PEXPIRE", "k", "100"}, false},
			// Expired with no command between: the same token again is a new version.
			{200 * time.Millisecond, []string{"SET", "k", "tok", "NX", "PX", "100"}, true},
			{0, []string{"WAIT", "0", "0"}, false},
		}, node.KeyString, "tok"},
		{"a Redisson-style hash", []cmd{
			{0, []string{"EVAL", hashAcquire, "1", "k", "c1:1", "30000"}, true},
			{0, []string{"EVAL", hashAcquire, "1", "k", "c1:1", "30000"}, true},
			{0, []string{"PEXPIRE", "k", "30000"}, false},
		}, node.KeyHash, "{c1:1: 2}"},
	}
	for _, tt := range tests {
		res, err := oneProc(func(p Proc) (Lease, error) {
			for _, c := range tt.cmds {
				p.Sleep(c.sleep)
				p.Do(0, c.args...)
			}
			return Lease{}, nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		evs := eventsOf(res.History, KindCommand)
		if len(evs) != len(tt.cmds) {
			t.Fatalf("%s: %d command events, want %d", tt.name, len(evs), len(tt.cmds))
		}
		for i, e := range evs {
			if e.Key.Fresh != tt.cmds[i].fresh {
				t.Errorf("%s: %q left %+v, want Fresh %v", tt.name, e.Args, e.Key, tt.cmds[i].fresh)
			}
		}
		if k := evs[len(evs)-1].Key; !k.Exists || k.Type != tt.typ || k.Value != tt.value {
			t.Errorf("%s: last key %+v, want %s %q", tt.name, k, tt.typ, tt.value)
		}
	}
}

// A replica's applied entry is a new version where its primary's command
// was one.
func TestReplicateEventsRecordVersions(t *testing.T) {
	res, err := oneProc(func(p Proc) (Lease, error) {
		p.Do(0, "SET", "k", "tok", "PX", "10000")
		p.Do(0, "PEXPIRE", "k", "10000")
		p.Do(0, "EVAL", hashAcquire, "1", "h", "c1:1", "30000") // another key: its entry leaves k alone
		p.Sleep(time.Second)
		return Lease{}, nil
	}, withReplica(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	reps := eventsOf(res.History, KindReplicate)
	want := []bool{true, false, false}
	if len(reps) != len(want) {
		t.Fatalf("%d replicate events, want %d", len(reps), len(want))
	}
	for i, e := range reps {
		if !e.Key.Exists || e.Key.Fresh != want[i] {
			t.Errorf("replicate %q: key %+v, want Fresh %v", e.Args, e.Key, want[i])
		}
	}
}

// A restart's or a failover's event carries the key it leaves, Fresh when
// it is not the version the lane had.
func TestFaultEventsRecordVersions(t *testing.T) {
	tests := []struct {
		name   string
		fault  Fault
		mod    func(*Config)
		second bool // a second SET, of another value, 200ms in
		exists bool
		fresh  bool
	}{
		{"AOF always reloads the same version", Fault{Kind: fault.NodeRestart, At: 500 * time.Millisecond},
			func(c *Config) { c.Nodes[0].Persistence = PersistAlways }, false, true, false},
		{"no persistence loses it", Fault{Kind: fault.NodeRestart, At: 500 * time.Millisecond}, nil, false, false, false},
		{"a promoted replica with the same version", Fault{Kind: fault.Failover, At: 500 * time.Millisecond},
			withReplica(100 * time.Millisecond), false, true, false},
		// The replica has the first SET only: an older version comes back.
		{"a promoted replica with an older version", Fault{Kind: fault.Failover, At: 210 * time.Millisecond},
			withReplica(100 * time.Millisecond), true, true, true},
	}
	for _, tt := range tests {
		res, err := oneProc(func(p Proc) (Lease, error) {
			p.Do(0, "SET", "k", "a", "PX", "60000")
			if tt.second {
				p.Sleep(200 * time.Millisecond)
				p.Do(0, "SET", "k", "b", "PX", "60000")
			}
			p.Sleep(time.Second)
			return Lease{}, nil
		}, func(c *Config) {
			if tt.mod != nil {
				tt.mod(c)
			}
			tt.fault.Dur = 50 * time.Millisecond
			c.Faults = []Fault{tt.fault}
		})
		if err != nil {
			t.Fatal(err)
		}
		faults := eventsOf(res.History, KindFault)
		if len(faults) != 1 {
			t.Fatalf("%s: %d fault events", tt.name, len(faults))
		}
		if k := faults[0].Key; k.Exists != tt.exists || k.Fresh != tt.fresh {
			t.Errorf("%s: fault event key %+v, want exists %v Fresh %v", tt.name, k, tt.exists, tt.fresh)
		}
	}
}

// The digest hashes Fresh only where a change of the key on the event's
// lane does not imply it: lanes are tracked apart, and a restart, or a
// failover that promoted a replica, sets its lane's key too.
func TestDigestFreshFlag(t *testing.T) {
	key := func(v string, fresh bool) KeyState { return KeyState{Exists: v != "", Fresh: fresh, Value: v, TTL: -1} }
	cmd := func(node int, k KeyState) Event { return Event{Kind: KindCommand, Node: node, Key: k} }
	tests := []struct {
		name    string
		events  []Event
		flagged []bool
	}{
		{"implied", []Event{cmd(0, key("a", true)), cmd(0, key("a", false)), cmd(0, key("b", true)), cmd(0, key("", false))},
			[]bool{false, false, false, false}},
		{"hidden and missing", []Event{cmd(0, key("a", false)), cmd(0, key("a", true))},
			[]bool{true, true}},
		{"lanes apart", []Event{cmd(0, key("a", true)), cmd(1, key("a", true)), cmd(0, key("a", false))},
			[]bool{false, false, false}},
		{"a restart resets its lane", []Event{cmd(0, key("a", true)),
			{Kind: KindFault, Fault: fault.NodeRestart, Node: 0}, cmd(0, key("a", true))},
			[]bool{false, false, false}},
		{"a failover with no replica leaves it", []Event{cmd(0, key("a", true)),
			{Kind: KindFault, Fault: fault.Failover, Node: 0}, cmd(0, key("a", true))},
			[]bool{false, false, true}},
		{"a failover's promoted key", []Event{cmd(0, key("a", true)),
			{Kind: KindFault, Fault: fault.Failover, Node: 0, Value: 2, Key: key("b", true)}, cmd(0, key("b", false))},
			[]bool{false, false, false}},
		{"other events carry none", []Event{{Kind: KindLockInvoke, Proc: 0, Node: -1}, cmd(0, key("a", true))},
			[]bool{false, false}},
	}
	for _, tt := range tests {
		d := digester{lanes: make([]KeyState, 3)}
		for i := range tt.events {
			code := d.keyCode(&tt.events[i])
			if got := code&freshFlag != 0; got != tt.flagged[i] {
				t.Errorf("%s: event %d flagged %v, want %v", tt.name, i, got, tt.flagged[i])
			}
		}
	}
}

// A string key's state hashes as it did before types were recorded (1 for
// exists), another type apart from a string of the same drawing.
func TestDigestKeyType(t *testing.T) {
	d := digester{lanes: make([]KeyState, 1)}
	str := Event{Kind: KindCommand, Key: KeyState{Exists: true, Fresh: true, Value: "{a: 1}"}}
	if c := d.keyCode(&str); c != 1 {
		t.Errorf("a string key's code %d, want 1", c)
	}
	h := func(typ KeyType) string {
		hist := History{Nodes: 1, Events: []Event{{Kind: KindCommand, Key: KeyState{Exists: true, Fresh: true, Type: typ, Value: "{a: 1}"}}}}
		return hist.Digest()
	}
	if h(node.KeyString) == h(node.KeyHash) || h(node.KeyHash) == h(node.KeySet) {
		t.Error("the key's type does not reach the digest")
	}
}

// A replica's entry is the version of the process whose command wrote it on
// the primary: c2's PEXPIRE of c1's key is a new version on both lanes, c1's
// own PEXPIRE is not.
func TestReplicaVersionsByWriter(t *testing.T) {
	res, err := oneProc(nil, func(c *Config) {
		withReplica(10 * time.Millisecond)(c)
		c.Procs = []ProcSpec{{Name: "c1", Iterations: 1}, {Name: "c2", Iterations: 1}}
		c.NewLocker = func(i int) Locker {
			return scriptLock{acquire: func(p Proc) (Lease, error) {
				if i == 0 {
					p.Do(0, "SET", "k", "a", "PX", "10000")
					p.Sleep(100 * time.Millisecond)
					p.Do(0, "PEXPIRE", "k", "10000")
				} else {
					p.Sleep(50 * time.Millisecond)
					p.Do(0, "PEXPIRE", "k", "10000")
				}
				p.Sleep(time.Second)
				return Lease{}, nil
			}}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{true, true, true} // c1's SET, c2's PEXPIRE, c1's PEXPIRE (over c2's)
	for _, kind := range []Kind{KindCommand, KindReplicate} {
		evs := eventsOf(res.History, kind)
		if len(evs) != len(want) {
			t.Fatalf("%s: %d events, want %d", kind, len(evs), len(want))
		}
		for i, e := range evs {
			if e.Key.Fresh != want[i] {
				t.Errorf("%s %q: %+v, want Fresh %v", kind, e.Args, e.Key, want[i])
			}
		}
	}
}
