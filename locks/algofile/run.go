package algofile

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// fileLocker runs an algorithm file for one process incarnation. It mirrors
// the built-ins' shape: Acquire is a loop of tries with the file's retry
// policy, each try runs the acquire steps; all on node 0.
type fileLocker struct {
	a     *fileAlgo
	p     locks.Params
	owner string // {owner}: drawn at its first use, kept for the incarnation
	pid   string // {pid}: likewise
	kept  string // a token drawn for the incarnation (token scope process)
	// until is the lease's validity on the local clock, for extend's
	// check_valid: from the start of the try or extend that set it.
	until time.Time
}

// validFrom sets the lease's validity from a successful acquire or extend
// begun at start: the TTL less valid_if's drift.
func (l *fileLocker) validFrom(start time.Time) {
	if !l.a.checkValid {
		return
	}
	drift := time.Duration(0)
	if v := l.a.valid; v != nil {
		drift = time.Duration(float64(l.p.TTL)*v.factor) + v.plus
	}
	l.until = start.Add(l.p.TTL - drift)
}

// scope is the token's scope: the scenario's token_scope when it sets one,
// else the file's, else a fresh draw each try.
func (l *fileLocker) scope() string {
	switch {
	case l.p.TokenScope != "":
		return l.p.TokenScope
	case l.a.token.scope != "":
		return l.a.token.scope
	}
	return locks.TokenTry
}

// ownerID is {owner}: the process's name and a random part, as Redisson's
// "UUID:threadId" names one client thread. It is drawn from the process's
// source only when a file uses it, so files without it run as before.
func (l *fileLocker) ownerID(p sim.Proc) string {
	if l.owner == "" {
		l.owner = fmt.Sprintf("%s:%016x", p.Name(), p.Rand().Uint64())
	}
	return l.owner
}

// try is the state of one run of an operation's steps.
type try struct {
	l        *fileLocker
	p        sim.Proc
	random   string // this try's random token, drawn at its first use
	token    string // {token} as last used: the lease keeps it
	leaseTok string // release and extend: the lease's token
	fixedTok bool   // {token} is leaseTok
	fence    int64
	node     int // the node this run of the steps sends to
}

func (l *fileLocker) Acquire(p sim.Proc) (sim.Lease, error) {
	start := p.Now() // retry.for counts from here, on the local clock
	scope := l.scope()
	kept := "" // token scope acquire keeps the first try's random token
	if scope == tokenProcess {
		kept = l.kept
	}
	for n := 1; ; n++ {
		t := &try{l: l, p: p}
		if scope != locks.TokenTry {
			t.random = kept
		}
		tryStart := p.Now()
		out, err := t.runAll(&l.a.acquire)
		if scope == tokenProcess {
			l.kept = t.random
		}
		if err != nil {
			return sim.Lease{}, err
		}
		// redsync's and node-redlock's check: a lock that took too long to
		// take may already be expiring; release it and count the try failed.
		// A cleanup after each try releases it below, as redsync's one
		// release after any failed try does; else the file's release.
		if out == outHeld && l.a.valid != nil && !l.a.valid.ok(p.Now().Sub(tryStart), l.p.TTL) {
			if l.a.cleanup == nil || !l.a.cleanupEach {
				if err := t.undo(&l.a.release); err != nil {
					return sim.Lease{}, err
				}
			}
			out = outRetry
		}
		if out == outHeld {
			l.validFrom(tryStart)
			return sim.Lease{Held: true, Token: t.token, Fence: t.fence}, nil
		}
		kept = t.random
		if l.a.cleanup != nil && l.a.cleanupEach {
			if err := t.undo(l.a.cleanup); err != nil {
				return sim.Lease{}, err
			}
		}
		last := out == outFail || locks.LastTry(n, l.p.Retries)
		var d time.Duration
		if !last && out == outRetry {
			d = l.a.retry.sleep(p, l.p.RetrySleep, n)
		}
		// redis-py's blocking_timeout: no try that would begin past the limit.
		if lim := l.a.retry.limitFor(l.p.TTL); !last && lim > 0 && p.Now().Add(d).Sub(start) > lim {
			last = true
		}
		if last {
			return sim.Lease{}, l.giveUp(t, n)
		}
		if out == outRetry {
			p.Sleep(d)
		}
	}
}

// giveUp ends an acquire that did not get the lock after n tries: the
// cleanup that runs once (node-redlock releases what a minority of nodes
// took), then not held, or the library's exception.
func (l *fileLocker) giveUp(t *try, n int) error {
	if l.a.cleanup != nil && !l.a.cleanupEach {
		if err := t.undo(l.a.cleanup); err != nil {
			return err
		}
	}
	if l.a.giveUpErr {
		return clientErr(l.a.name, "acquire", "not acquired after %d %s: the library throws", n, plural(n, "try", "tries"))
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// undo runs a release-shaped operation with the try's token: a failed
// validity check's release, or a cleanup.
func (t *try) undo(op *operation) error {
	u := &try{l: t.l, p: t.p, leaseTok: t.token, fixedTok: true}
	_, err := u.runAll(op)
	return err
}

func (l *fileLocker) Release(p sim.Proc, lease sim.Lease) error {
	t := &try{l: l, p: p, leaseTok: lease.Token, fixedTok: true}
	_, err := t.runAll(&l.a.release)
	return err
}

// extendingLocker is a file's lock when the file has an extend: only then
// is it a sim.Extender, so that a scenario's renew_every leaves a file
// without extend alone instead of telling its holder it lost the lock.
type extendingLocker struct{ *fileLocker }

// Extend runs the file's extend operation for a held lease: true if the
// lease was extended. The workload's watchdog calls it every renew_every.
func (l extendingLocker) Extend(p sim.Proc, lease sim.Lease) (bool, error) {
	start := p.Now()
	// node-redlock's extend refuses an expired lock before sending anything.
	if l.a.checkValid && !start.Before(l.until) {
		return false, nil
	}
	t := &try{l: l.fileLocker, p: p, leaseTok: lease.Token, fixedTok: true}
	out, err := t.runAll(l.a.extend)
	if out == outHeld && err == nil {
		l.validFrom(start)
	}
	return out == outHeld, err
}

// RenewalFailsSilently is extend.silent: the holder is not told that a
// renewal failed (python-redis-lock), and works on as if it held the lock.
func (l extendingLocker) RenewalFailsSilently() bool { return l.a.silent }

// RenewEvery is extend.every for the lock's TTL: the library's own period
// (python-redis-lock renews every 2/3 of its expiry, node-redlock's using()
// at expiry − 500 ms), used when the scenario sets no renew_every; 0: none.
func (l extendingLocker) RenewEvery() time.Duration { return l.a.every.of(l.p.TTL) }

// tokenFor gives {token} for one step: the lease's, this try's random one,
// or the file's token format evaluated with the step's clock, its {token}
// the random part.
func (t *try) tokenFor(e *env) string {
	switch {
	case t.fixedTok:
		return t.leaseTok
	case t.l.a.token.format == nil:
		return t.randomPart()
	}
	inner := env{p: e.p, now: e.now, owner: e.owner, proc: e.proc, tok: t.randomPart}
	return t.l.a.token.format.expand(&inner)
}

// randomPart is the try's random token, drawn at its first use.
func (t *try) randomPart() string {
	if t.random == "" {
		t.random = t.l.a.token.draw(t.p)
	}
	return t.random
}

// runAll runs an operation on the lock's nodes: node 0 alone for a file
// without nodes:, else each node in turn with the same token, the outcome
// held when a quorum of them held (acquire, extend). A client error on any
// node ends the operation, as the file's rules say it throws.
func (t *try) runAll(op *operation) (outcome, error) {
	if t.l.a.nodes == 0 {
		return t.run(op)
	}
	n := t.l.p.Nodes
	held, failed, now := 0, false, true
	var last outcome
	for i := 0; i < n; i++ {
		t.node = i
		out, err := t.run(op)
		if err != nil {
			return outNone, err
		}
		switch out {
		case outHeld:
			held++
		case outFail:
			failed = true
		case outRetry, outLost:
			now = false
		}
		last = out
	}
	t.node = 0
	switch {
	case op.kind == opRelease || op.kind == opCleanup:
		return last, nil
	case held >= t.l.a.quorumOf(n):
		return outHeld, nil
	case op.kind == opExtend:
		return outLost, nil
	case failed:
		return outFail, nil
	case now && held == 0:
		return outRetryNow, nil
	}
	return outRetry, nil
}

// run runs an operation's steps to the outcome that ends it.
func (t *try) run(op *operation) (outcome, error) {
	var reply sim.Reply
	var replyLabel string
	for i := range op.steps {
		s := &op.steps[i]
		e := &env{p: t.l.p, now: t.p.Now(), owner: t.l, proc: t.p}
		if s.usesTok {
			tok := t.tokenFor(e)
			t.token = tok
			e.tok = func() string { return tok }
		}
		label := replyLabel
		if s.args != nil {
			label = t.label(s, e)
			args := make([]string, len(s.args))
			for j := range s.args {
				args[j] = s.args[j].expand(e)
			}
			r, err := t.sendStep(s, args)
			if err != nil {
				out, ruled := s.decideFailure(err)
				switch {
				case refused(err) || ruled && out == outError || !ruled && op.errors == outError:
					return outNone, &locks.ClientError{Algorithm: t.l.a.name, Step: label, Err: err}
				case !ruled:
					return op.errors, nil
				case out == outNext:
					reply, replyLabel = failureReply(err), label
					continue
				}
				return out, nil
			}
			reply, replyLabel = r, label
			if s.fence {
				if r.Kind != node.Int {
					return outNone, clientErr(t.l.a.name, label, "fence: want an integer reply, got %s", r)
				}
				t.fence = r.Int
			}
		}
		out, err := s.decide(reply, e)
		if err != nil {
			return outNone, &locks.ClientError{Algorithm: t.l.a.name, Step: label, Err: err}
		}
		switch out {
		case outNext:
			continue
		case outError:
			return outNone, clientErr(t.l.a.name, label, "reply %s: the file's rule says error", reply)
		}
		return out, nil
	}
	return outDone, nil // a release whose last step has no rule
}

// sendStep sends a step's command: as it is, or a script by its SHA1 with
// the client library's fallback when the node does not have it.
func (t *try) sendStep(s *step, args []string) (sim.Reply, error) {
	if s.evalsha == evalshaNone {
		return t.send(s, args)
	}
	src := args[1]
	args[0], args[1] = "EVALSHA", s.sha
	r, err := t.send(s, args)
	var re *sim.RedisError
	if !errors.As(err, &re) || !strings.HasPrefix(re.Msg, "NOSCRIPT") {
		return r, err
	}
	if s.evalsha == evalshaEval {
		args[0], args[1] = "EVAL", src
		return t.send(s, args)
	}
	if _, err := t.send(s, []string{"SCRIPT", "LOAD", src}); err != nil {
		return sim.Reply{}, err
	}
	return t.send(s, args)
}

// send is one command with the client library's own resends: the same
// command, the same arguments, after a timeout only (an error reply is an
// answer).
func (t *try) send(s *step, args []string) (sim.Reply, error) {
	r, err := sim.Do(t.p, t.node, args...)
	for k := 1; k <= s.resend.times && errors.Is(err, sim.ErrTimeout); k++ {
		if s.resend.base > 0 {
			t.p.Sleep(fullJitter(t.p, s.resend.base, s.resend.cap, k))
		}
		r, err = sim.Do(t.p, t.node, args...)
	}
	return r, err
}

// fullJitter is redis-py's ExponentialWithJitterBackoff: uniform in
// [0, base × 2^k), at most cap.
func fullJitter(p sim.Proc, base, cap time.Duration, k int) time.Duration {
	f := p.Rand().Float64() * float64(base) * float64(uint64(1)<<min(k, 40))
	return time.Duration(min(f, float64(cap)))
}

// refused reports an error locksim itself raised: a command the node does not
// simulate, or a script cut off by its instruction budget. That is the file's
// code failing, whatever its errors policy says about Redis errors.
func refused(err error) bool {
	var re *sim.RedisError
	return errors.As(err, &re) && strings.HasPrefix(re.Msg, "ERR locksim: ")
}

// label names a step in client errors: the file's label, or the command and
// its first argument when that is the key or plain text ("SETNX lock.foo"),
// or EVAL and the script file's name ("EVAL acquire.lua").
func (t *try) label(s *step, e *env) string {
	if len(s.label.parts) > 0 {
		return s.label.expand(e)
	}
	if s.script != "" {
		return "EVAL " + s.script
	}
	name, _ := s.args[0].literal()
	name = strings.ToUpper(name)
	if len(s.args) > 1 && name != "EVAL" && !s.args[1].uses(func(n string) bool { return n != phKey }) {
		return name + " " + s.args[1].expand(e)
	}
	return name
}

// decideFailure applies the step's timeout and error rules to a command
// that failed: ruled is false when none matches (the operation's errors:
// decides).
func (s *step) decideFailure(err error) (out outcome, ruled bool) {
	for _, ru := range s.rules {
		if ru.pred.matchFailure(err) {
			return ru.then, true
		}
	}
	return outNone, false
}

// failureReply is a failed command as the reply a check after it sees: the
// error reply, or nil for a timeout.
func failureReply(err error) sim.Reply {
	var re *sim.RedisError
	if errors.As(err, &re) {
		return sim.Reply{Kind: node.Error, Str: re.Msg}
	}
	return sim.Reply{}
}

func (p *predicate) matchFailure(err error) bool {
	var re *sim.RedisError
	switch p.kind {
	case predTimeout:
		return errors.Is(err, sim.ErrTimeout)
	case predError:
		if !errors.As(err, &re) {
			return false
		}
		prefix, _ := p.t.literal()
		return strings.HasPrefix(re.Msg, prefix)
	}
	return false
}

// decide applies the step's rules in order; no rule means next.
func (s *step) decide(r sim.Reply, e *env) (outcome, error) {
	if len(s.rules) == 0 {
		return outNext, nil
	}
	for _, ru := range s.rules {
		ok, err := ru.pred.match(r, e)
		if err != nil {
			return outNone, err
		}
		if ok {
			return ru.then, nil
		}
	}
	return outNone, fmt.Errorf("no rule matches the reply %s", r)
}

func (p *predicate) match(r sim.Reply, e *env) (bool, error) {
	switch p.kind {
	case predAny:
		return true, nil
	case predOK:
		return r.Kind == node.Status && r.Str == "OK", nil
	case predNil:
		return r.Kind == node.Nil, nil
	case predNotNil:
		return r.Kind != node.Nil, nil
	case predInteger:
		return r.Kind == node.Int, nil
	case predAtLeast:
		return r.Kind == node.Int && r.Int >= p.n, nil
	case predEquals:
		s, ok := replyText(r)
		return ok && s == p.t.expand(e), nil
	case predLessThan:
		n, err := replyInt(r)
		if err != nil {
			return false, err
		}
		bound, _ := strconv.ParseInt(p.t.expand(e), 10, 64) // validated: a number
		return n < bound, nil
	case predStatus:
		return r.Kind == node.Status, nil
	case predArray:
		return r.Kind == node.Array, nil
	case predLength:
		return r.Kind == node.Array && int64(len(r.Elems)) == p.n, nil
	case predElement:
		i := p.n
		if i < 0 {
			i += int64(len(r.Elems))
		}
		if r.Kind != node.Array || i < 0 || i >= int64(len(r.Elems)) {
			return false, nil
		}
		return p.sub.match(r.Elems[i], e)
	}
	return false, nil // predTimeout, predError: a reply is neither
}

// replyText is a reply as text: a string, a status, an integer in decimal.
func replyText(r sim.Reply) (string, bool) {
	switch r.Kind {
	case node.Bulk, node.Status:
		return r.Str, true
	case node.Int:
		return strconv.FormatInt(r.Int, 10), true
	}
	return "", false
}

// replyInt reads a reply as an integer the way int() and Long.parseLong do:
// nil or other text throws.
func replyInt(r sim.Reply) (int64, error) {
	switch r.Kind {
	case node.Int:
		return r.Int, nil
	case node.Bulk, node.Status:
		n, err := strconv.ParseInt(r.Str, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("value %q is not an integer", r.Str)
		}
		return n, nil
	}
	return 0, fmt.Errorf("want an integer, got %s", r)
}

// retryPolicy is a file's retry beyond attempts and sleep (which are
// Params, so that a scenario may override them).
type retryPolicy struct {
	jitter   bool          // sleep uniform in [sleep/2, 3·sleep/2): the built-ins' jitter
	spread   time.Duration // sleep uniform in [sleep−spread, sleep+spread), at least 0 (node-redlock's retryJitter)
	limit    time.Duration // retry.for: no try begins later than this after the first
	limitTTL bool          // retry.for: ttl, the lock's TTL (bsm/redislock's default deadline)
	factor   float64       // backoff: each sleep is factor times the one before; 0: none
	maxSleep time.Duration // backoff's cap; 0: none
}

// maxBackoff caps a backoff without max: a day is no retry loop.
const maxBackoff = 24 * time.Hour

// sleep is the pause after failed try n (1-based) with base sleep base:
// grown by the backoff, capped, then jittered from the process's source.
func (r *retryPolicy) sleep(p sim.Proc, base time.Duration, n int) time.Duration {
	d := base
	if r.factor > 0 {
		limit := maxBackoff
		if r.maxSleep > 0 {
			limit = r.maxSleep
		}
		f := float64(base)
		for i := 1; i < n && f < float64(limit); i++ {
			f *= r.factor
		}
		d = time.Duration(min(f, float64(limit)))
	}
	switch {
	case r.jitter:
		d = locks.Jitter(p, d)
	case r.spread > 0:
		d = max(d+time.Duration(p.Rand().Int64N(int64(2*r.spread)))-r.spread, 0)
	}
	return d
}

// limitFor is retry.for for a lock of ttl; 0: no limit.
func (r *retryPolicy) limitFor(ttl time.Duration) time.Duration {
	if r.limitTTL {
		return ttl
	}
	return r.limit
}

func clientErr(algo, step string, format string, args ...any) error {
	return &locks.ClientError{Algorithm: algo, Step: step, Err: fmt.Errorf(format, args...)}
}
