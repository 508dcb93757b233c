package node

import (
	"fmt"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// Replaying a script's known path. A script is a function of its text,
// KEYS, ARGV, read-only flag, instruction budget and the replies its
// redis.calls get: math.random restarts from the seed every script (a path
// that draws from it is not kept, so the seed does not count), the globals
// are read-only, and a state that could carry anything over is spoiled. So
// what a script did once, it does again when the same calls get the same
// replies: a waiter polling a held lock runs the same script hundreds of
// times, and interpreting it was most of a poll's time.
//
// The VM keeps, per script and arguments, a tree of the paths it saw: the
// first call, then by its reply the second, and so on to the reply the
// script returned. A run walks the tree, sending each call through the path
// redis.call takes (send: MaxScriptWrites, refusals, effects replication,
// answerPoll, the watched key), with no Lua. A reply off the tree runs the
// script in Lua, the calls already made handed their replies (presets):
// nothing runs twice.
//
// A script that ends in a tail call, return redis.call("pttl", KEYS[1]),
// returns that call's reply whatever it is: such a call is marked tail, and
// an integer or nil reply off the tree still ends the replay. Kept paths are
// the ones a run ends normally, within its budgets and without spoiling the
// state; TestPollsAsMiniredis runs scripts with and without replays.

// Bounds on what a VM keeps: paths of scripts whose arguments vary (a new
// token each attempt) push out the ones used least recently.
const (
	maxReplayScripts = 32
	maxReplaySteps   = 64 // calls and ends a tree grows to, and calls a kept path makes
)

// scriptPaths is the tree of one script run with one set of arguments.
type scriptPaths struct {
	proto      *lua.FunctionProto
	keys, argv []string
	readOnly   bool
	limit      int64
	root       *pathStep
	steps      int
}

// pathStep is what a script does after the calls on the way to it: a call
// (args not nil), or its end, returning result.
type pathStep struct {
	args    []string // as the script passed them, name not upper-cased
	name    string   // args[0] upper-cased (commandCase), looked up once
	cost    int64    // callCost
	read    []string // a poll read's args, name upper-cased, made at its first replay
	replies []pathEdge
	result  Reply
	common  bool // name is one of lockCommands
	tail    bool // the script returns this call's reply
	poll    bool // a poll read (pollRead)
}

type pathEdge struct {
	reply Reply
	next  *pathStep
}

// after is the step that follows reply r to this call, nil when unknown.
func (s *pathStep) after(r Reply) *pathStep {
	if i := s.edge(r); i >= 0 {
		return s.replies[i].next
	}
	return nil
}

func (s *pathStep) edge(r Reply) int {
	for i := range s.replies {
		// Kind, Int and Str first: most replies differ there, and Equal
		// copies both replies to compare them.
		if e := &s.replies[i].reply; e.Kind == r.Kind && e.Int == r.Int && e.Str == r.Str && e.Equal(r) {
			return i
		}
	}
	return -1
}

// madeCall is one redis.call of the script being run or replayed.
type madeCall struct {
	args    []string // nil: arguments Redis refused, a path not kept
	cost    int64
	reply   Reply // before errorText
	refused bool  // MaxScriptWrites refused the call: its reply is not charged
	tail    bool  // called from the main chunk with a reply a tail may return
	entry   int64 // the instruction budget used when the call was made
}

// replayer is the VM's part of replaying: the kept trees, and the calls of
// the script being run.
type replayer struct {
	paths   []*scriptPaths // at most maxReplayScripts, the last found first
	cur     *scriptPaths   // the running script's tree, if kept
	made    []madeCall
	presets []madeCall // calls a replay made before it left the tree
	preset  int        // the next preset a call takes
	random  bool       // the running script drew from math.random
}

// replaying says the node keeps and replays scripts' paths: a script it
// runs in Lua has its calls noted in made, and a known one is replayed.
func (vm *luaVM) replaying() bool { return !vm.n.noReplay }

// find returns the tree of the script with these arguments, or nil, and
// moves it to the front: a search's nodes keep the trees of earlier runs'
// tokens, and the few a run polls with are then met first.
func (r *replayer) find(proto *lua.FunctionProto, keys, argv []string, readOnly bool, limit int64) *scriptPaths {
	for i, p := range r.paths {
		if p.proto == proto && p.readOnly == readOnly && p.limit == limit &&
			slices.Equal(p.keys, keys) && slices.Equal(p.argv, argv) {
			copy(r.paths[1:i+1], r.paths[:i])
			r.paths[0] = p
			return p
		}
	}
	return nil
}

// add keeps a new, empty tree in front, dropping the one used least
// recently past the bound.
func (r *replayer) add(proto *lua.FunctionProto, keys, argv []string, readOnly bool, limit int64) *scriptPaths {
	p := &scriptPaths{proto: proto, keys: slices.Clone(keys), argv: slices.Clone(argv), readOnly: readOnly, limit: limit}
	if len(r.paths) < maxReplayScripts {
		r.paths = append(r.paths, nil)
	}
	copy(r.paths[1:], r.paths)
	r.paths[0] = p
	return p
}

// beginRun readies the calls of a script about to run in Lua: cur is its
// tree if kept. presets, left by a replay that met an unknown reply, are
// untouched: the run's first calls take them.
func (vm *luaVM) beginRun(cur *scriptPaths) {
	r := &vm.replay
	r.cur, r.random = cur, false
	r.made, r.preset = r.made[:0], 0
}

// endRun checks that a run in Lua made every call its replay made.
func (vm *luaVM) endRun() {
	r := &vm.replay
	if r.preset != len(r.presets) {
		panic(fmt.Sprintf("locksim: a script rerun after its replay made %d of the replay's %d calls", r.preset, len(r.presets)))
	}
	r.presets, r.preset, r.cur = r.presets[:0], 0, nil
}

// record notes one call of a script running in Lua.
func (vm *luaVM) record(L *lua.LState, args []string, cost int64, reply Reply, refused bool, entry int64) {
	c := madeCall{args: args, cost: cost, reply: reply, refused: refused, entry: entry}
	if !refused && (reply.Kind == Int || reply.Kind == Nil) {
		// A tail call of the main chunk: redis.call is the main function's
		// callee, not pcall's or another function's.
		if dbg, ok := L.GetStack(1); ok {
			if f, err := L.GetInfo("fS", dbg, lua.LNil); err == nil && dbg.What == "main" && f == vm.fn {
				c.tail = true
			}
		}
	}
	vm.replay.made = append(vm.replay.made, c)
}

// keep adds the path of a script that ran in Lua and returned result
// normally (ok) to its tree.
func (vm *luaVM) keep(ok bool, c *compiled, keys, argv []string, readOnly bool, limit int64, result Reply) {
	r := &vm.replay
	if !ok || !vm.replaying() || r.random || vm.spoiled {
		return
	}
	made := r.made
	for _, m := range made {
		if m.args == nil {
			return
		}
	}
	p := r.cur
	if p == nil {
		p = r.add(c.proto, keys, argv, readOnly, limit)
	}
	if p.steps >= maxReplaySteps || len(made) >= maxReplaySteps {
		return // a tree holds at most about twice the bound
	}
	at := &p.root
	for i, m := range made {
		s := *at
		if s == nil {
			s = &pathStep{args: m.args, cost: m.cost}
			s.name, s.common = commandCase(m.args[0])
			s.poll = pollRead(s.name, len(m.args))
			*at = s
			p.steps++
		} else if !slices.Equal(s.args, m.args) || s.cost != m.cost {
			panic(fmt.Sprintf("locksim: script call %d was %q, once %q, after the same replies", i+1, m.args, s.args))
		}
		// Nothing ran after the last call (the budget counts every
		// instruction): the script returned its reply.
		if i == len(made)-1 && m.tail && m.entry == vm.budget.used {
			if want := toReply(vm.toLua(m.reply)); !want.Equal(result) {
				panic(fmt.Sprintf("locksim: a script's tail call replied %v but the script %v", m.reply, result))
			}
			s.tail = true
		}
		e := s.edge(m.reply)
		if e < 0 {
			s.replies = append(s.replies, pathEdge{reply: cloneReply(m.reply)})
			e = len(s.replies) - 1
		}
		at = &s.replies[e].next
	}
	if *at == nil {
		*at = &pathStep{result: cloneReply(result)}
		p.steps++
	} else if end := *at; end.args != nil || !end.result.Equal(result) {
		panic(fmt.Sprintf("locksim: a script returned %v, once %v, after the same replies", result, end.result))
	}
}

// replayed walks the script's tree, making its calls; ok false when a reply
// leaves it, the calls made kept as presets for the run in Lua.
func (vm *luaVM) replayed(p *scriptPaths) (Reply, bool) {
	r := &vm.replay
	r.presets = r.presets[:0]
	for s := p.root; s != nil; {
		if s.args == nil {
			r.presets = r.presets[:0]
			vm.n.replays++
			return cloneReply(s.result), true
		}
		reply, refused := vm.sendKept(s)
		r.presets = append(r.presets, madeCall{args: s.args, cost: s.cost, reply: reply, refused: refused})
		next := s.after(reply)
		if next == nil && s.tail && !refused && (reply.Kind == Int || reply.Kind == Nil) {
			r.presets = r.presets[:0]
			vm.n.replays++
			return vm.throughLua(reply), true
		}
		s = next
	}
	return Reply{}, false
}

// pollRead says whether a script's call of name with n arguments is a
// read answerPoll may answer: a lock command that read-only scripts may
// call too, which no check refuses, effects replication leaves out and
// nothing before answerPoll answers (exec), so a kept one goes there
// first (sendKept).
func pollRead(name string, n int) bool {
	switch name {
	case "GET", "EXISTS", "PTTL":
		return n == 2
	case "HEXISTS":
		return n == 3
	}
	return false
}

// sendKept is send for kept call s, its name upper-cased when kept: a poll
// read (pathStep.poll) goes to answerPoll first, with no argument copy,
// and the rest of exec only when it does not answer.
func (vm *luaVM) sendKept(s *pathStep) (Reply, bool) {
	if !vm.countWrites(s.cost) {
		return errorReply(oomError), true
	}
	if s.poll {
		if s.read == nil { // not when kept: most scripts a lock sends once never replay
			s.read = make([]string, len(s.args))
			s.read[0] = s.name
			copy(s.read[1:], s.args[1:])
		}
		n := vm.n
		if r, ok := n.answerPoll(vm.peer, s.name, s.read); ok {
			if n.follow.on {
				n.followed(s.read, r)
			}
			return r, false
		}
	}
	args := append(vm.args[:0], s.args...) // exec upper-cases the name in place
	vm.args = args
	return vm.exec(args, s.name, s.common), false
}

// cloneReply copies r's element lists, which a kept reply must not share.
func cloneReply(r Reply) Reply {
	if r.Elems != nil {
		r.Elems = slices.Clone(r.Elems)
		for i, e := range r.Elems {
			r.Elems[i] = cloneReply(e)
		}
	}
	return r
}
