package algofile

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/text"
	"github.com/locksim/locksim/internal/userfile"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim/node"
	"go.yaml.in/yaml/v3"
)

// validator collects the first error, with the field it belongs to.
type validator struct {
	readScript func(string) ([]byte, error)
	err        error
	fenced     bool              // some acquire step has fence: true
	scripts    map[string]string // Lua source → the name reports show
}

func (v *validator) fail(field, format string, args ...any) {
	if v.err == nil {
		// OneLine: a key the file wrote may hold a line break.
		v.err = errors.New(text.OneLine(field + ": " + fmt.Sprintf(format, args...)))
	}
}

var (
	// scriptCall finds redis.call("CMD" and redis.pcall('CMD' with a literal
	// command name, to check the node supports it.
	scriptCall = regexp.MustCompile(`redis\s*\.\s*p?call\s*\(\s*["']([A-Za-z_|-]+)["']`)
)

func (v *validator) file(f *algoFile) *fileAlgo {
	a := &fileAlgo{name: f.Name}
	switch {
	case f.Name == "":
		v.fail("name", "missing: give the algorithm a name")
	case !locks.ValidName(f.Name):
		v.fail("name", "%q: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", f.Name)
	default:
		if _, err := locks.Lookup(f.Name); err == nil {
			v.fail("name", "%q is a built-in algorithm: pick another name", f.Name)
		}
	}
	if strings.ContainsAny(f.Summary, "\r\n") {
		v.fail("summary", "must be one line")
	}
	if f.Key == "" {
		v.fail("key", "missing: the lock key")
	}
	v.positive("ttl", f.TTL, true)
	if f.Resolution != "" {
		v.positive("resolution", f.Resolution, false)
	}
	a.token = v.tokenFile(&f.Token)
	a.retry = v.retry(&f.Retry)
	a.lifetime = v.lifetime(f.Lifetime)

	if f.Acquire == nil {
		v.fail("acquire", "missing: the command or script that takes the lock")
	} else {
		a.acquire = v.operation("acquire", opAcquire, f.Acquire)
	}
	if f.Release == nil {
		v.fail("release", "missing: the command or script that releases the lock")
	} else {
		a.release = v.operation("release", opRelease, f.Release)
	}
	if f.Extend != nil {
		op := v.operation("extend", opExtend, f.Extend)
		a.extend = &op
		a.every = v.renewEvery(f.Extend.Every)
		a.checkValid = f.Extend.CheckValid
		a.silent = f.Extend.Silent
	}
	switch r := f.Retry.Exhausted; r {
	case "", "not_held":
	case "error":
		a.giveUpErr = true
	default:
		v.fail("retry.exhausted", "%q: want not_held (giving up returns not held) or error (it throws)", r)
	}
	if f.Cleanup != nil {
		if f.Cleanup.Every != "" || f.Cleanup.CheckValid {
			v.fail("cleanup", "every and check_valid belong to extend")
		}
		if f.Cleanup.Silent {
			v.fail("cleanup.silent", "belongs to extend: a renewal failure the holder is not told of")
		}
		op := v.operation("cleanup", opCleanup, f.Cleanup)
		a.cleanup = &op
		switch f.Cleanup.After {
		case "", "give_up":
		case "try":
			a.cleanupEach = true
		default:
			v.fail("cleanup.after", "%q: want try (after each failed try: redsync) or give_up (once, after the last: node-redlock)", f.Cleanup.After)
		}
	}
	for _, o := range []struct {
		name string
		op   *opFile
	}{{"acquire", f.Acquire}, {"release", f.Release}, {"extend", f.Extend}} {
		if o.op != nil && o.op.After != "" {
			v.fail(o.name+".after", "only cleanup runs after something")
		}
		if o.op != nil && o.name != "extend" && (o.op.Every != "" || o.op.CheckValid) {
			v.fail(o.name, "every and check_valid belong to extend")
		}
		if o.op != nil && o.name != "extend" && o.op.Silent {
			v.fail(o.name+".silent", "belongs to extend: a renewal failure the holder is not told of")
		}
	}
	if f.ValidIf != nil {
		a.valid = v.validIf(f.ValidIf)
	}
	if f.Assumes != nil {
		a.assumes = v.assumes(f.Assumes)
	}
	v.nodes(a, f)
	// Release and extend see the lease's token: one the acquire never sets
	// would always be empty.
	if v.err == nil && !a.acquire.usesToken() {
		for _, op := range []*operation{&a.release, a.extend, a.cleanup} {
			if op != nil && op.usesToken() {
				v.fail(opNames[op.kind], "uses {token}, which the acquire never sets (the lease's token would be empty)")
			}
		}
	}
	return a
}

// duration reads a Go duration ("1.5s", "200ms").
func (v *validator) duration(field, s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		v.fail(field, "%q is not a duration (write it like 1.5s or 200ms)", s)
		return 0
	}
	return d
}

func (v *validator) positive(field, s string, required bool) time.Duration {
	if s == "" {
		if required {
			v.fail(field, "missing: a duration such as 30s")
		}
		return 0
	}
	d := v.duration(field, s)
	if d <= 0 && v.err == nil {
		v.fail(field, "%s: must be more than 0", s)
	}
	return d
}

func (v *validator) retry(r *retryFile) retryPolicy {
	var pol retryPolicy
	switch r.Attempts {
	case "", "forever":
	default:
		n, err := strconv.Atoi(r.Attempts)
		if err != nil || n < 1 {
			v.fail("retry.attempts", "%q: want a count of tries ≥ 1, or forever", r.Attempts)
		}
	}
	if r.Sleep != "" {
		if d := v.duration("retry.sleep", r.Sleep); d < 0 {
			v.fail("retry.sleep", "%s is negative", r.Sleep)
		}
	}
	switch j := &r.Jitter; {
	case j.Kind == 0:
	case j.Kind == yaml.ScalarNode && (j.Value == "true" || j.Value == "false") && j.Tag == "!!bool":
		pol.jitter = j.Value == "true"
	case j.Kind == yaml.ScalarNode && j.Tag != "!!null":
		d, err := time.ParseDuration(j.Value)
		if err != nil || d <= 0 {
			v.fail("retry.jitter", "%q: want true (sleep/2 to 3·sleep/2) or a spread such as 100ms (sleep ± it)", j.Value)
		}
		pol.spread = d
	default:
		v.fail("retry.jitter", "want true (sleep/2 to 3·sleep/2) or a spread such as 100ms (sleep ± it)")
	}
	if r.For == "ttl" {
		pol.limitTTL = true
	} else if r.For != "" {
		pol.limit = v.duration("retry.for", r.For)
		if pol.limit <= 0 && v.err == nil {
			v.fail("retry.for", "%s: must be more than 0 (leave it out for no time limit, or write ttl for the lock's)", r.For)
		}
	}
	if b := r.Backoff; b != nil {
		f, err := strconv.ParseFloat(b.Factor, 64)
		switch {
		case b.Factor == "":
			v.fail("retry.backoff.factor", "missing: how much each sleep grows, such as 2")
		case err != nil || !(f >= 1 && f <= 1000):
			v.fail("retry.backoff.factor", "%q: want a number from 1 to 1000", b.Factor)
		}
		pol.factor = f
		if b.Max != "" {
			pol.maxSleep = v.duration("retry.backoff.max", b.Max)
			if pol.maxSleep <= 0 && v.err == nil {
				v.fail("retry.backoff.max", "%s: must be more than 0", b.Max)
			}
		}
	}
	return pol
}

var lifetimeForm = regexp.MustCompile(`^\{(ttl_ms|ttl_s)([+-][0-9]{1,16})?\}(ns|us|µs|ms|s|m|h)$`)

// lifetime reads "never", a duration, or "{ttl_s+1}s": a TTL placeholder,
// an optional offset and a unit.
func (v *validator) lifetime(s string) lifetimeSpec {
	switch {
	case s == "":
		return lifetimeSpec{} // the TTL
	case s == "never":
		return lifetimeSpec{never: true}
	case strings.HasPrefix(s, "{"):
		m := lifetimeForm.FindStringSubmatch(s)
		if m == nil {
			v.fail("lifetime", "%q: want never, a duration, or a TTL placeholder with a unit such as {ttl_s+1}s", s)
			return lifetimeSpec{}
		}
		unit, _ := time.ParseDuration("1" + m[3])
		off, _ := strconv.ParseInt(m[2], 10, 64) // "" is 0
		return lifetimeSpec{ph: m[1], off: off, unit: unit}
	}
	d := v.duration("lifetime", s)
	if d <= 0 && v.err == nil {
		v.fail("lifetime", "%s: must be more than 0 (never: the lock never expires)", s)
	}
	return lifetimeSpec{fixed: d}
}

func (v *validator) template(field, s string) template {
	t, err := parseTemplate(s)
	if err != nil {
		v.fail(field, "%s", err)
	}
	return t
}

// args reads a list of arguments: scalars only, no nulls (YAML would drop
// them and shift the rest).
func (v *validator) args(field string, nodes []yaml.Node) []template {
	var out []template
	for i := range nodes {
		n := &nodes[i]
		f := fmt.Sprintf("%s[%d]", field, i)
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			v.fail(f, "want text or a number (write \"\" for an empty argument)")
			return nil
		}
		out = append(out, v.template(f, n.Value))
	}
	return out
}

func (v *validator) operation(field string, kind opKind, o *opFile) operation {
	op := operation{kind: kind, errors: outError}
	single := !o.stepFile.empty()
	switch {
	case single && len(o.Steps) > 0:
		v.fail(field, "has both steps and a single step's fields: use one or the other")
		return op
	case !single && len(o.Steps) == 0:
		v.fail(field, "empty: give a command, a script or steps")
		return op
	case len(o.Steps) > maxSteps:
		v.fail(field+".steps", "%d steps, more than %d", len(o.Steps), maxSteps)
		return op
	}
	if o.Errors != "" {
		switch out, err := parseOutcome(kind, o.Errors); {
		case err != nil:
			v.fail(field+".errors", "%s", err)
		case out == outNext:
			v.fail(field+".errors", "next: an error ends the operation (use %s or error)", map[opKind]string{opAcquire: "retry", opRelease: "done", opExtend: "lost", opCleanup: "done"}[kind])
		default:
			op.errors = out
		}
	}
	if single {
		op.steps = []step{v.step(field, kind, &o.stepFile, 0, 1)}
	} else {
		for i := range o.Steps {
			op.steps = append(op.steps, v.step(fmt.Sprintf("%s.steps[%d]", field, i), kind, &o.Steps[i], i, len(o.Steps)))
		}
	}
	return op
}

func (op *operation) usesToken() bool {
	for _, s := range op.steps {
		if s.usesTok {
			return true
		}
	}
	return false
}

func (s *stepFile) empty() bool {
	return s.Label == "" && s.Command == nil && s.Script == "" && s.ScriptFile == "" && s.Keys == nil &&
		s.Args == nil && !s.Fence && s.Resend.Kind == 0 && s.Evalsha == "" && s.Success.Kind == 0 && s.On == nil
}

func (v *validator) step(field string, kind opKind, f *stepFile, i, n int) step {
	var s step
	last := i == n-1
	script := f.Script != "" || f.ScriptFile != ""
	switch {
	case f.Command != nil && script:
		v.fail(field, "has both command and a script: a step runs one")
	case f.Script != "" && f.ScriptFile != "":
		v.fail(field, "has both script and script_file: give one")
	case !script && (f.Keys != nil || f.Args != nil):
		v.fail(field, "keys and args go with script or script_file")
	case f.Command != nil:
		s.args = v.command(field+".command", f.Command)
	case script:
		s.args, s.script = v.script(field, f), f.ScriptFile
	case i == 0:
		v.fail(field, "has no command or script: a check of the previous reply cannot come first")
	}
	if f.Fence && kind != opAcquire {
		v.fail(field+".fence", "only an acquire step carries the fencing number")
	}
	if f.Fence && kind == opAcquire {
		v.fenced = true
	}
	if f.Fence && s.args == nil {
		v.fail(field+".fence", "a check has no reply of its own to take the fencing number from")
	}
	s.fence = f.Fence
	s.resend = v.resend(field+".resend", &f.Resend)
	if s.resend.times > 0 && s.args == nil {
		v.fail(field+".resend", "a check sends nothing to resend")
	}
	switch f.Evalsha {
	case "":
	case "eval", "load":
		if !script {
			v.fail(field+".evalsha", "only a script is sent by its SHA1")
		}
		s.evalsha = evalshaEval
		if f.Evalsha == "load" {
			s.evalsha = evalshaLoad
		}
		if len(s.args) > 1 {
			src, _ := s.args[1].literal()
			sum := sha1.Sum([]byte(src))
			s.sha = hex.EncodeToString(sum[:])
		}
	default:
		v.fail(field+".evalsha", "%q: want eval (EVALSHA, then EVAL on NOSCRIPT: go-redis) or load (EVALSHA, then SCRIPT LOAD and EVALSHA: redis-py)", f.Evalsha)
	}

	// Rules: success is shorthand for [{if: pred, then: held}, {then: retry}].
	switch {
	case f.Success.Kind != 0 && f.On != nil:
		v.fail(field, "has both success and on: give one")
	case f.Success.Kind != 0:
		if kind == opRelease || kind == opCleanup {
			v.fail(field+".success", "a release has no success rule (its reply is not looked at; use on: to branch)")
		}
		fail := outRetry
		if kind == opExtend {
			fail = outLost
		}
		s.rules = []rule{{pred: v.predicate(field+".success", &f.Success), then: outHeld}, {then: fail}}
	case len(f.On) > maxRules:
		v.fail(field+".on", "%d rules, more than %d", len(f.On), maxRules)
	default:
		for j := range f.On {
			rf := fmt.Sprintf("%s.on[%d]", field, j)
			r := rule{}
			if f.On[j].If.Kind != 0 {
				r.pred = v.predicate(rf+".if", &f.On[j].If)
			}
			if f.On[j].Then == "" {
				v.fail(rf+".then", "missing: what the rule decides")
			} else if out, err := parseOutcome(kind, f.On[j].Then); err != nil {
				v.fail(rf+".then", "%s", err)
			} else {
				r.then = out
			}
			if r.then == outNext && last {
				v.fail(rf+".then", "next: there is no next step")
			}
			s.rules = append(s.rules, r)
		}
	}
	if s.rules == nil {
		switch {
		case s.args == nil:
			v.fail(field, "a check needs on: or success:")
		case last && kind != opRelease && kind != opCleanup:
			v.fail(field, "the last step of %s needs success: or on: to say whether it worked", opNames[kind])
		}
	}

	if f.Label != "" {
		s.label = v.template(field+".label", f.Label)
		if s.label.uses(func(n string) bool { return n == phToken }) {
			v.fail(field+".label", "cannot use {token}")
		}
	}
	s.usesTok = anyUses(s.args, phToken) || s.label.uses(isToken)
	for _, r := range s.rules {
		s.usesTok = s.usesTok || r.pred.t.uses(isToken)
	}
	return s
}

func isToken(n string) bool { return n == phToken }

func anyUses(ts []template, name string) bool {
	for _, t := range ts {
		if t.uses(func(n string) bool { return n == name }) {
			return true
		}
	}
	return false
}

func (v *validator) command(field string, nodes []yaml.Node) []template {
	if len(nodes) == 0 {
		v.fail(field, "empty: want the command and its arguments, such as [SET, \"{key}\", \"{token}\", NX]")
		return nil
	}
	if len(nodes) > maxArgs {
		v.fail(field, "%d arguments, more than %d", len(nodes), maxArgs)
		return nil
	}
	args := v.args(field, nodes)
	if v.err != nil {
		return nil
	}
	name, ok := args[0].literal()
	switch {
	case !ok:
		v.fail(field+"[0]", "the command name cannot be a placeholder")
	case !node.Supported(name) && !node.RunByEngine(name):
		v.fail(field+"[0]", "%s is not a command locksim's Redis (miniredis) runs", strconv.Quote(name))
	}
	return args
}

// script reads a step's script and builds its EVAL command.
func (v *validator) script(field string, f *stepFile) []template {
	src, name := f.Script, field+".script"
	if f.ScriptFile != "" {
		if v.readScript == nil {
			v.fail(field+".script_file", "script files cannot be read here")
			return nil
		}
		if err := userfile.Local(f.ScriptFile); err != nil {
			v.fail(field+".script_file", "%s: %s", strconv.Quote(f.ScriptFile), err)
			return nil
		}
		data, err := v.readScript(f.ScriptFile)
		if err != nil {
			v.fail(field+".script_file", "%s: %s", f.ScriptFile, text.FirstLine(err.Error()))
			return nil
		}
		src, name = string(data), f.ScriptFile
	}
	shown := name
	if f.ScriptFile == "" && f.Label != "" {
		shown = f.Label
	}
	if v.scripts == nil {
		v.scripts = map[string]string{}
	}
	v.scripts[src] = shown
	if err := node.Compile(name, src); err != nil {
		if f.ScriptFile != "" {
			v.fail(field+".script_file", "%s", withoutContent(text.FirstLine(err.Error())))
		} else if v.err == nil {
			v.err = errors.New(text.FirstLine(err.Error())) // "acquire.script:3: syntax error near 'then'"
		}
		return nil
	}
	for _, m := range scriptCall.FindAllStringSubmatch(src, -1) {
		if !node.Supported(m[1]) {
			line := strings.Count(src[:strings.Index(src, m[0])], "\n") + 1
			v.fail(field, "%s:%d: %s is not a command locksim's Redis (miniredis) runs", name, line, strconv.Quote(m[1]))
			return nil
		}
	}
	if len(f.Keys)+len(f.Args) > maxArgs {
		v.fail(field, "%d keys and args, more than %d", len(f.Keys)+len(f.Args), maxArgs)
		return nil
	}
	keys := v.args(field+".keys", f.Keys)
	args := v.args(field+".args", f.Args)
	out := []template{lit("EVAL"), lit(src), lit(strconv.Itoa(len(keys)))}
	out = append(out, keys...)
	return append(out, args...)
}

func lit(s string) template { return template{parts: []part{{lit: s}}} }

// predicate reads ok, nil, not_nil, integer, {equals: V}, {at_least: N} or
// {less_than: T}.
func (v *validator) predicate(field string, n *yaml.Node) predicate {
	bad := func() predicate {
		v.fail(field, "want one of %s", strings.Join(predNames, ", "))
		return predicate{}
	}
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.Value {
		case "ok":
			return predicate{kind: predOK}
		case "nil":
			return predicate{kind: predNil}
		case "not_nil":
			return predicate{kind: predNotNil}
		case "integer":
			return predicate{kind: predInteger}
		case "status":
			return predicate{kind: predStatus}
		case "array":
			return predicate{kind: predArray}
		case "timeout":
			return predicate{kind: predTimeout}
		case "error":
			return predicate{kind: predError}
		}
		return bad()
	case yaml.MappingNode:
		if len(n.Content) == 2 && n.Content[0].Value == "element" {
			return v.element(field+".element", n.Content[1])
		}
		if len(n.Content) != 2 || n.Content[1].Kind != yaml.ScalarNode || n.Content[1].Tag == "!!null" {
			return bad()
		}
		key, val := n.Content[0].Value, n.Content[1].Value
		f := field + "." + key
		switch key {
		case "length":
			x, err := strconv.Atoi(val)
			if err != nil || x < 0 {
				v.fail(f, "%q: want a count of elements ≥ 0", val)
			}
			return predicate{kind: predLength, n: int64(x)}
		case "error":
			if val == "" {
				v.fail(f, "empty: give the start of the error message, such as NOSCRIPT, or write error alone")
			}
			return predicate{kind: predError, t: lit(val)}
		case "equals":
			return predicate{kind: predEquals, t: v.template(f, val)}
		case "at_least":
			x, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				v.fail(f, "%q is not a whole number", val)
			}
			return predicate{kind: predAtLeast, n: x}
		case "less_than":
			t := v.template(f, val)
			if v.err == nil && !t.integer() {
				v.fail(f, "%q: want a whole number or one numeric placeholder such as {now_s}", val)
			}
			return predicate{kind: predLessThan, t: t}
		}
	}
	return bad()
}

// element reads {index: I, is: PRED}: an array reply's element I (0 the
// first, -1 the last) matches PRED.
func (v *validator) element(field string, n *yaml.Node) predicate {
	p := predicate{kind: predElement}
	var index, is *yaml.Node
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			switch n.Content[i].Value {
			case "index":
				index = n.Content[i+1]
			case "is":
				is = n.Content[i+1]
			default:
				v.fail(field+"."+n.Content[i].Value, "unknown field (valid: index, is)")
				return p
			}
		}
	}
	if index == nil || is == nil || index.Kind != yaml.ScalarNode {
		v.fail(field, "want {index: I, is: PREDICATE}, such as {index: 0, is: {equals: 1}}")
		return p
	}
	x, err := strconv.ParseInt(index.Value, 10, 64)
	if err != nil || x < -maxArgs || x >= maxArgs {
		v.fail(field+".index", "%q: want an index from %d to %d (negative counts from the end)", index.Value, -maxArgs, maxArgs-1)
	}
	p.n = x
	sub := v.predicate(field+".is", is)
	if sub.matchesFailure() {
		v.fail(field+".is", "an element is a reply, not a timeout or an error")
	}
	p.sub = &sub
	return p
}

// validity is validFile read: drift = factor × ttl + plus.
type validity struct {
	factor float64
	plus   time.Duration
}

func (v *validator) validIf(f *validFile) *validity {
	var c validity
	if f.DriftFactor == "" && f.Drift == "" {
		v.fail("valid_if", "give drift_factor, drift or both: the lock is valid if elapsed + drift_factor × ttl + drift < ttl")
	}
	if f.DriftFactor != "" {
		x, err := strconv.ParseFloat(f.DriftFactor, 64)
		if err != nil || !(x >= 0 && x < 1) {
			v.fail("valid_if.drift_factor", "%q: want a fraction of the TTL from 0 to below 1, such as 0.01", f.DriftFactor)
		}
		c.factor = x
	}
	if f.Drift != "" {
		c.plus = v.duration("valid_if.drift", f.Drift)
		if c.plus < 0 {
			v.fail("valid_if.drift", "%s is negative", f.Drift)
		}
	}
	return &c
}

// ok reports whether a lock taken in elapsed, with ttl, is still valid:
// elapsed + drift < ttl, the drift rounded to whole nanoseconds.
func (c *validity) ok(elapsed, ttl time.Duration) bool {
	drift := time.Duration(float64(ttl)*c.factor) + c.plus
	return elapsed+drift < ttl
}

// renewPeriod is extend.every: a duration, or a share of the TTL less an
// offset, so that a scenario's ttl override moves it as the library's
// period moves with its expiry.
type renewPeriod struct {
	fixed    time.Duration
	num, den int64         // ttl × num / den; den 0: not a share
	minus    time.Duration // then less this
}

var renewForm = regexp.MustCompile(`^ttl(?:\*([0-9]{1,4}))?(?:/([0-9]{1,4}))?(?:-([0-9.]+[a-zµ]+))?$`)

func (v *validator) renewEvery(s string) renewPeriod {
	var r renewPeriod
	if s == "" {
		return r
	}
	bad := func() renewPeriod {
		v.fail("extend.every", "%q: want a duration (10s) or a share of the TTL less an offset: ttl/3, ttl*2/3, ttl-500ms", s)
		return renewPeriod{}
	}
	if m := renewForm.FindStringSubmatch(s); m != nil {
		r.num, r.den = 1, 1
		if m[1] != "" {
			r.num, _ = strconv.ParseInt(m[1], 10, 64)
		}
		if m[2] != "" {
			r.den, _ = strconv.ParseInt(m[2], 10, 64)
		}
		if m[3] != "" {
			d, err := time.ParseDuration(m[3])
			if err != nil {
				return bad()
			}
			r.minus = d
		}
		if r.num == 0 || r.den == 0 || r.num > r.den || r.num == r.den && r.minus == 0 {
			v.fail("extend.every", "%q: renew before the lease runs out (a share below the TTL: 1/3, 2/3, or ttl less an offset)", s)
		}
		return r
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return bad()
	}
	if d <= 0 {
		v.fail("extend.every", "%s: must be more than 0", s)
	}
	r.fixed = d
	return r
}

// of is the period for ttl; 0: the file names none (the scenario's
// renew_every alone runs a watchdog).
func (r renewPeriod) of(ttl time.Duration) time.Duration {
	if r.den == 0 {
		return r.fixed
	}
	return max(time.Duration(int64(ttl)/r.den*r.num)-r.minus, time.Millisecond)
}

// resendPolicy is a step's resend: how many times a timed-out command is
// sent again, and the client's pause before each resend: none, or redis-py's
// full jitter, uniform in [0, base × 2^k) capped at cap before resend k.
type resendPolicy struct {
	times     int
	base, cap time.Duration
}

// resend reads resend: N or {times: N, base: D, cap: D}.
func (v *validator) resend(field string, n *yaml.Node) resendPolicy {
	var r resendPolicy
	count := func(f, s string) int {
		x, err := strconv.Atoi(s)
		if err != nil || x < 0 || x > maxResend {
			v.fail(f, "%q: want a count of resends from 0 to %d", s, maxResend)
		}
		return x
	}
	switch n.Kind {
	case 0:
		return r
	case yaml.ScalarNode:
		r.times = count(field, n.Value)
		return r
	case yaml.MappingNode:
	default:
		v.fail(field, "want a count, or {times: N, base: 10ms, cap: 1s}")
		return r
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i].Value, n.Content[i+1]
		f := field + "." + key
		if val.Kind != yaml.ScalarNode {
			v.fail(f, "want a single value")
			return r
		}
		switch key {
		case "times":
			r.times = count(f, val.Value)
		case "base":
			r.base = v.positive(f, val.Value, true)
		case "cap":
			r.cap = v.positive(f, val.Value, true)
		default:
			v.fail(f, "unknown field (valid: times, base, cap)")
		}
	}
	if r.base > 0 && r.cap == 0 || r.cap > 0 && r.base == 0 {
		v.fail(field, "base and cap go together: the pause before resend k is uniform in [0, base × 2^k), at most cap")
	}
	return r
}

// evalshaMode is how a script step is sent.
type evalshaMode uint8

const (
	evalshaNone evalshaMode = iota // EVAL with the source
	evalshaEval                    // EVALSHA; on NOSCRIPT, EVAL (go-redis's Script.Run)
	evalshaLoad                    // EVALSHA; on NOSCRIPT, SCRIPT LOAD and EVALSHA again (redis-py's Script)
)

// maxNodes bounds nodes: (Redlock deployments have 3 to 7).
const maxNodes = 32

// nodes reads nodes: and quorum:. A file without nodes: runs on node 0 as
// it always has; with it, every operation runs its steps on each node in
// turn (as the built-in redlock does), and an acquire or extend holds when
// a quorum of nodes said held.
func (v *validator) nodes(a *fileAlgo, f *algoFile) {
	switch {
	case f.Nodes == 0 && f.Quorum != "":
		v.fail("quorum", "needs nodes: how many nodes the lock takes")
		return
	case f.Nodes == 0:
		return
	case f.Nodes < 1 || f.Nodes > maxNodes:
		v.fail("nodes", "%d: want 1 to %d", f.Nodes, maxNodes)
		return
	case v.fenced && f.Nodes > 1:
		v.fail("nodes", "%d: a fencing number (fence: true) comes from one node", f.Nodes)
		return
	}
	a.nodes = f.Nodes
	switch q := f.Quorum; q {
	case "", "majority":
	default:
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 || n > f.Nodes {
			v.fail("quorum", "%q: want majority or a count of nodes from 1 to %d", q, f.Nodes)
			return
		}
		a.quorum = n
	}
}

// quorumOf is how many of n nodes must say held.
func (a *fileAlgo) quorumOf(n int) int {
	if a.quorum > 0 {
		return a.quorum
	}
	return n/2 + 1
}

// assumes reads the assumes: section: every field optional, each checked.
func (v *validator) assumes(f *assumesFile) locks.Assumptions {
	var a locks.Assumptions
	if f.Expiry != "" {
		e, ok := locks.ParseExpiry(f.Expiry)
		if !ok {
			v.fail("assumes.expiry", "%q: want %s (what ends a lease its holder does not release)", f.Expiry, strings.Join(locks.ExpiryNames(), ", "))
		}
		a.Expiry = e
	}
	a.Pause = v.positive("assumes.pause", f.Pause, false)
	a.Fsync = f.Fsync
	a.Wait = v.positive("assumes.wait", f.Wait, false)
	return a
}
