package model

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/internal/strictyaml"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// The checker validation corpus: small histories written by hand in
// testdata/corpus, each with the verdict, every violation's window and every
// note derived by hand in its comment. Every checker runs on each (porcupine
// included) and must give exactly that: the verdict, the violations' kinds,
// processes and windows, the notes' processes and windows, and porcupine's
// two answers. Jepsen keeps known-bad histories for the same reason: a
// checker is only as good as the histories it has been shown to judge.

// corpusCase is one file.
type corpusCase struct {
	Procs      []string `yaml:"procs"`
	Nodes      int      `yaml:"nodes"`       // default 1
	TTL        string   `yaml:"ttl"`         // Options.TTL; empty: no TTL
	StaleBound string   `yaml:"stale_bound"` // Options.StaleBound; empty: the default
	Events     []string `yaml:"events"`
	Want       struct {
		Verdict    string   `yaml:"verdict"`
		Violations []string `yaml:"violations"` // "KIND PROCS FROM TO"
		Notes      []string `yaml:"notes"`      // "PROCS FROM TO"
		Lock       string   `yaml:"lock"`       // porcupine on the mutex: yes, no
		Resource   string   `yaml:"resource"`   // porcupine on the counter: yes, no
	} `yaml:"want"`
}

// An event line is "AT WHO WHAT ARGS...": AT a Go duration of true time
// since the start; WHO a process name, nodeN for a node's fault, or - for
// none. WHAT, for a process:
//
//	acquire                  Acquire called
//	held TOKEN [FENCE]       Acquire returned the lock
//	fail                     Acquire returned without it
//	release TOKEN            Release called
//	released                 Release returned; released! MSG: with an error
//	cmd REQ NODE KEY ARGS    command REQ ran on NODE; KEY is the watched key
//	                         after it: - (absent), VALUE (no TTL), VALUE@TTL;
//	                         TYPE:CONTENT for another type than a string
//	                         (hash, list, set, zset), CONTENT drawn as the
//	                         engine draws it, spaces and all: {f: v, g: w}
//	                         for a hash; a trailing ! marks the key Fresh
//	                         (the command began a new version: sim/node's
//	                         KeyState), so t1@1s! or hash:{u1:1: 1}@30s!
//	reply REQ NODE           the command's reply reached the client
//	timeout REQ NODE         the client timed out: the reply was lost, or,
//	                         with no cmd REQ line before it, the request
//	read V                   the critical section read V
//	write V FENCE ok|refused the critical section wrote V
//	extend                   the watchdog called Extend
//	extended | extend-failed Extend returned renewed, or not; extend! MSG: with an error
//	reenter TOKEN | reexit   a re-entrant Acquire returned held; its Release returned
//	crash | restart | pause DUR | jump DUR
//	end                      the process ended; end! MSG: on a client error
//
// for a node: restart [DUR down], jump DUR; for -: tick (only moves the run's end).
// A command is sent at its first line's AT.
func parseEvent(line string, procs []string) (sim.Event, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return sim.Event{}, fmt.Errorf("want AT WHO WHAT")
	}
	at, err := time.ParseDuration(f[0])
	if err != nil {
		return sim.Event{}, err
	}
	e := sim.Event{At: sim.Time(at), Proc: -1, Node: -1}
	who, what, args := f[1], f[2], f[3:]
	rest := strings.Join(args, " ")
	need := func(n int) error {
		if len(args) < n {
			return fmt.Errorf("%s wants %d arguments", what, n)
		}
		return nil
	}
	dur := func(s string) time.Duration {
		d, derr := time.ParseDuration(s)
		if derr != nil && err == nil {
			err = derr
		}
		return d
	}
	num := func(s string) int64 {
		n, nerr := strconv.ParseInt(s, 10, 64)
		if nerr != nil && err == nil {
			err = nerr
		}
		return n
	}
	switch {
	case who == "-":
		if what != "tick" {
			return e, fmt.Errorf("- only ticks")
		}
		e.Kind = sim.KindProcStart
		return e, nil
	case strings.HasPrefix(who, "node"):
		e.Node = int(num(who[4:]))
		e.Kind = sim.KindFault
		switch what {
		case "restart":
			e.Fault = fault.NodeRestart
			if len(args) > 0 { // down for DUR
				e.Dur = dur(args[0])
			}
		case "jump":
			if err := need(1); err != nil {
				return e, err
			}
			e.Fault, e.Dur = fault.NodeJump, dur(args[0])
		default:
			return e, fmt.Errorf("unknown node event %q", what)
		}
		return e, err
	}
	e.Proc = slices.Index(procs, who)
	if e.Proc < 0 {
		return e, fmt.Errorf("unknown process %q", who)
	}
	switch what {
	case "acquire":
		e.Kind = sim.KindLockInvoke
	case "held":
		if err := need(1); err != nil {
			return e, err
		}
		e.Kind, e.Held, e.Token = sim.KindLockReturn, true, args[0]
		if len(args) > 1 {
			e.Fence = num(args[1])
		}
	case "fail":
		e.Kind = sim.KindLockReturn
	case "release":
		if err := need(1); err != nil {
			return e, err
		}
		e.Kind, e.Token = sim.KindReleaseInvoke, args[0]
	case "released":
		e.Kind = sim.KindReleaseReturn
	case "released!":
		e.Kind, e.Err = sim.KindReleaseReturn, rest
	case "cmd":
		if err := need(4); err != nil {
			return e, err
		}
		// KEY may hold spaces (a hash's content): the arguments after it
		// are what follows it on the line.
		key, after, kerr := parseKey(strings.Join(args[2:], " "))
		if kerr != nil {
			return e, kerr
		}
		e.Kind, e.Req, e.Node, e.Args = sim.KindCommand, uint64(num(args[0])), int(num(args[1])), strings.Fields(after)
		if len(e.Args) == 0 {
			return e, fmt.Errorf("cmd wants the command after KEY")
		}
		e.Sent, e.Key = e.At, key
	case "reply", "timeout":
		if err := need(2); err != nil {
			return e, err
		}
		e.Kind, e.Req, e.Node = sim.KindCommandResult, uint64(num(args[0])), int(num(args[1]))
		e.Sent = e.At // unless a line above sent it (loadCorpusCase)
		if what == "timeout" {
			e.Err = "timeout: lost"
		}
	case "read":
		if err := need(1); err != nil {
			return e, err
		}
		e.Kind, e.Value = sim.KindResourceRead, num(args[0])
	case "write":
		if err := need(3); err != nil {
			return e, err
		}
		e.Kind, e.Value, e.Fence, e.Accepted = sim.KindResourceWrite, num(args[0]), num(args[1]), args[2] == "ok"
	case "extend":
		e.Kind = sim.KindExtendInvoke
	case "extended":
		e.Kind, e.Held = sim.KindExtendReturn, true
	case "extend-failed":
		e.Kind = sim.KindExtendReturn
	case "extend!":
		e.Kind, e.Err = sim.KindExtendReturn, rest
	case "reenter":
		if err := need(1); err != nil {
			return e, err
		}
		e.Kind, e.Held, e.Token = sim.KindReenter, true, args[0]
	case "reexit":
		e.Kind = sim.KindReexit
	case "crash":
		e.Kind, e.Fault = sim.KindFault, fault.Crash
	case "restart":
		e.Kind, e.Fault = sim.KindFault, fault.Respawn
	case "pause", "jump":
		if err := need(1); err != nil {
			return e, err
		}
		e.Kind, e.Fault, e.Dur = sim.KindFault, fault.Pause, dur(args[0])
		if what == "jump" {
			e.Fault = fault.ClientJump
		}
	case "end":
		e.Kind = sim.KindProcEnd
	case "end!":
		e.Kind, e.Err = sim.KindProcEnd, rest
	default:
		return e, fmt.Errorf("unknown event %q", what)
	}
	return e, err
}

// keyTypes are the types a corpus KEY may name, by their prefix.
var keyTypes = map[string]sim.KeyType{
	"hash": node.KeyHash, "list": node.KeyList, "set": node.KeySet, "zset": node.KeyZSet,
}

// parseKey reads a cmd line's KEY from the start of s (see parseEvent), and
// returns what follows it.
func parseKey(s string) (sim.KeyState, string, error) {
	k := sim.KeyState{TTL: -1}
	if s == "-" || strings.HasPrefix(s, "- ") {
		return k, s[1:], nil
	}
	k.Exists = true
	end := strings.IndexByte(s, ' ')
	name, rest, _ := strings.Cut(s, ":")
	if keyTypes[name] != 0 && rest != "" && strings.ContainsRune("{[", rune(rest[0])) {
		// The content runs to its first closing bracket, spaces and all.
		closing := strings.IndexByte(rest, map[byte]byte{'{': '}', '[': ']'}[rest[0]])
		if closing < 0 {
			return k, "", fmt.Errorf("KEY %q: no closing bracket", s)
		}
		k.Type, k.Value = keyTypes[name], rest[:closing+1]
		s = rest[closing+1:]
		end = strings.IndexByte(s, ' ')
	}
	if end < 0 {
		end = len(s)
	}
	word, after := s[:end], s[end:]
	if k.Fresh = strings.HasSuffix(word, "!"); k.Fresh {
		word = word[:len(word)-1]
	}
	if k.Type == node.KeyString {
		k.Value, word = word, ""
		if v, ttl, ok := strings.Cut(k.Value, "@"); ok {
			k.Value, word = v, "@"+ttl
		}
	}
	if word != "" {
		ttl, ok := strings.CutPrefix(word, "@")
		d, err := time.ParseDuration(ttl)
		if !ok || err != nil {
			return k, "", fmt.Errorf("KEY %q: want @TTL after the content", s)
		}
		k.TTL = d
	}
	return k, after, nil
}

func loadCorpusCase(path string) (corpusCase, sim.History, Options, error) {
	var c corpusCase
	data, err := os.ReadFile(path)
	if err != nil {
		return c, sim.History{}, Options{}, err
	}
	if err := strictyaml.Decode(data, &c); err != nil {
		return c, sim.History{}, Options{}, err
	}
	h := sim.History{Procs: c.Procs, Nodes: max(c.Nodes, 1), WatchKey: "lock"}
	sent := map[uint64]sim.Time{} // a command's first line
	for i, line := range c.Events {
		e, err := parseEvent(line, c.Procs)
		if err != nil {
			return c, h, Options{}, fmt.Errorf("events[%d] %q: %v", i, line, err)
		}
		if n := len(h.Events); n > 0 && e.At < h.Events[n-1].At {
			return c, h, Options{}, fmt.Errorf("events[%d] %q: before the event above it", i, line)
		}
		if e.Kind == sim.KindCommand || e.Kind == sim.KindCommandResult {
			if at, ok := sent[e.Req]; ok {
				e.Sent = at
			} else {
				sent[e.Req] = e.Sent
			}
		}
		h.Events = append(h.Events, e)
	}
	var o Options
	for _, d := range []struct {
		s   string
		dst *time.Duration
	}{{c.TTL, &o.TTL}, {c.StaleBound, &o.StaleBound}} {
		if d.s != "" {
			if *d.dst, err = time.ParseDuration(d.s); err != nil {
				return c, h, o, err
			}
		}
	}
	return c, h, o, nil
}

// window is a finding as the corpus writes it.
func window(kind string, procs []string, from, to sim.Time) string {
	s := fmt.Sprintf("%s %s %s", strings.Join(procs, ","), since(from), since(to))
	if kind != "" {
		s = kind + " " + s
	}
	return s
}

// normalize rewrites a want line's durations the way since prints them, so
// "1100ms" and "1.1s" match.
func normalize(line string) (string, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return "", fmt.Errorf("%q: want [KIND] PROCS FROM TO", line)
	}
	for _, i := range []int{len(f) - 2, len(f) - 1} {
		d, err := time.ParseDuration(f[i])
		if err != nil {
			return "", fmt.Errorf("%q: %v", line, err)
		}
		f[i] = since(sim.Time(d))
	}
	return strings.Join(f, " "), nil
}

// normalizeAll is each want line through normalize.
func normalizeAll(t *testing.T, lines []string) []string {
	t.Helper()
	var out []string
	for _, line := range lines {
		n, err := normalize(line)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func TestCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 40 {
		t.Errorf("%d corpus histories, want at least 40", len(files))
	}
	verdicts := map[string]int{}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".yaml"), func(t *testing.T) {
			c, h, o, err := loadCorpusCase(path)
			if err != nil {
				t.Fatal(err)
			}
			v := Check(h, o)
			verdicts[v.Verdict]++
			if v.Verdict != c.Want.Verdict {
				t.Errorf("verdict %s, want %s", v.Verdict, c.Want.Verdict)
			}
			var got []string
			for _, x := range v.Violations {
				got = append(got, window(x.Kind, x.Processes, x.From, x.To))
			}
			if want := normalizeAll(t, c.Want.Violations); !slices.Equal(got, want) {
				t.Errorf("violations\n got  %q\n want %q", got, want)
			}
			got = nil
			for _, x := range v.Notes {
				got = append(got, window("", x.Processes, x.From, x.To))
			}
			if want := normalizeAll(t, c.Want.Notes); !slices.Equal(got, want) {
				t.Errorf("notes\n got  %q\n want %q", got, want)
			}
			if v.Linearizable.String() != c.Want.Lock || v.ResourceLinearizable.String() != c.Want.Resource {
				t.Errorf("porcupine: lock %s, resource %s; want %s, %s",
					v.Linearizable, v.ResourceLinearizable, c.Want.Lock, c.Want.Resource)
			}
			// The fast path (no porcupine) finds the same violations but for
			// the one kind only porcupine can find.
			fast := Check(h, Options{TTL: o.TTL, StaleBound: o.StaleBound, SkipPorcupine: true})
			var direct []string
			for _, x := range v.Violations {
				if x.Kind != KindNotLinearizable || len(x.Processes) > 0 {
					direct = append(direct, window(x.Kind, x.Processes, x.From, x.To))
				}
			}
			var fastGot []string
			for _, x := range fast.Violations {
				fastGot = append(fastGot, window(x.Kind, x.Processes, x.From, x.To))
			}
			if !slices.Equal(fastGot, direct) {
				t.Errorf("without porcupine\n got  %q\n want %q", fastGot, direct)
			}
		})
	}
	// The corpus must exercise every verdict, or it validates too little.
	for _, k := range []string{VerdictUnsafe, VerdictStuck, VerdictStale, VerdictClientError, VerdictSafe} {
		if verdicts[k] == 0 {
			t.Errorf("no corpus history is %s", k)
		}
	}
}
