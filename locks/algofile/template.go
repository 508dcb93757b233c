package algofile

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
)

// A template is one argument of an algorithm file's command: literal text
// with placeholders such as {key}, {token} or {expire_at_s+1}. "{{" and "}}"
// are literal braces (a Redis hash tag in an argument: "{{user1}}").
type template struct {
	parts []part
}

// part is literal text (name == "") or one placeholder.
type part struct {
	lit    string
	name   string // a placeholder's name
	offset int64  // a numeric placeholder's offset, in its own unit
}

// Placeholders, in the order examples/README.md lists them. The numeric ones are
// integers counted in their unit: {now_s} is the local clock in whole Unix
// seconds; {now}, {ttl} and {expire_at} count in the file's resolution.
const (
	phKey        = "key"
	phToken      = "token"
	phTTL        = "ttl"
	phTTLms      = "ttl_ms"
	phTTLs       = "ttl_s"
	phNow        = "now"
	phNowMs      = "now_ms"
	phNowS       = "now_s"
	phExpireAt   = "expire_at"
	phExpireAtMs = "expire_at_ms"
	phExpireAtS  = "expire_at_s"
	// phOwner names the process, stable across its acquisitions (one
	// incarnation's), unlike {token}, which is per acquisition: the hash
	// field a re-entrant lock counts in. Last, so that the list
	// as printed before it stays a prefix.
	phOwner = "owner"
	// phPid is a thread or process id, stable for the incarnation: the
	// "threadId" of Redisson's "uuid:threadId".
	phPid = "pid"
)

var placeholderNames = []string{phKey, phToken, phTTL, phTTLms, phTTLs, phNow, phNowMs, phNowS,
	phExpireAt, phExpireAtMs, phExpireAtS, phOwner, phPid}

// numeric reports whether a placeholder is an integer that takes an offset.
func numeric(name string) bool {
	return name != phKey && name != phToken && name != phOwner && name != phPid
}

func validPlaceholders() string {
	var b strings.Builder
	for i, n := range placeholderNames {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("{" + n + "}")
	}
	return b.String()
}

// maxOffset bounds {name+N}: a year in nanoseconds is 3.2e16, so any sane
// offset fits and no sum overflows int64.
const maxOffset = 1_000_000_000_000_000

// parseTemplate reads s. The error is one line without the field name.
func parseTemplate(s string) (template, error) {
	var t template
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			lit.WriteByte('{')
			i++
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte('}')
			i++
		case c == '}':
			return template{}, fmt.Errorf("a lone } at byte %d (write }} for a literal brace)", i+1)
		case c == '{':
			end := strings.IndexByte(s[i+1:], '}')
			if end < 0 {
				return template{}, fmt.Errorf("unclosed { at byte %d (write {{ for a literal brace)", i+1)
			}
			p, err := parsePlaceholder(s[i+1 : i+1+end])
			if err != nil {
				return template{}, err
			}
			if lit.Len() > 0 {
				t.parts = append(t.parts, part{lit: lit.String()})
				lit.Reset()
			}
			t.parts = append(t.parts, p)
			i += end + 1
		default:
			lit.WriteByte(c)
		}
	}
	if lit.Len() > 0 || len(t.parts) == 0 {
		t.parts = append(t.parts, part{lit: lit.String()})
	}
	return t, nil
}

// parsePlaceholder reads what is between the braces: name, name+N or name-N.
func parsePlaceholder(in string) (part, error) {
	name, sign, num := in, "", ""
	if i := strings.IndexAny(in, "+-"); i >= 0 {
		name, sign, num = in[:i], in[i:i+1], in[i+1:]
	}
	known := false
	for _, n := range placeholderNames {
		known = known || n == name
	}
	if !known {
		return part{}, fmt.Errorf("unknown placeholder %s (valid: %s)", quoteBraces(in), validPlaceholders())
	}
	if sign == "" {
		return part{name: name}, nil
	}
	if !numeric(name) {
		return part{}, fmt.Errorf("placeholder %s: only a number takes an offset ({%s} is text)", quoteBraces(in), name)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || num == "" || num[0] < '0' || num[0] > '9' || n > maxOffset {
		return part{}, fmt.Errorf("placeholder %s: the offset must be a whole number up to %d", quoteBraces(in), int64(maxOffset))
	}
	if sign == "-" {
		n = -n
	}
	return part{name: name, offset: n}, nil
}

// quoteBraces shows a placeholder as written, cut short if it is long.
func quoteBraces(in string) string {
	if len(in) > 40 {
		in = in[:40] + "…"
	}
	return strconv.Quote("{" + in + "}")
}

// uses reports whether the template has the placeholder name.
func (t template) uses(pred func(string) bool) bool {
	for _, p := range t.parts {
		if p.name != "" && pred(p.name) {
			return true
		}
	}
	return false
}

// single reports whether the template is exactly one numeric placeholder or
// an integer literal, what a comparison needs.
func (t template) integer() bool {
	if len(t.parts) != 1 {
		return false
	}
	p := t.parts[0]
	if p.name != "" {
		return numeric(p.name)
	}
	_, err := strconv.ParseInt(p.lit, 10, 64)
	return err == nil
}

// literal is the template's text when it has no placeholder.
func (t template) literal() (string, bool) {
	if len(t.parts) == 1 && t.parts[0].name == "" {
		return t.parts[0].lit, true
	}
	return "", false
}

// env gives the placeholders their values for one step. The clock is read
// once, when the step begins, so a step's command and its rules see the same
// {now}; {token} is asked of tok only when the template uses it.
type env struct {
	p   locks.Params
	now time.Time
	tok func() string
	// owner gives {owner} (drawn by ownerID at first use); nil, outside a
	// run, gives "". A locker and its process, not a closure: a step's env
	// must not allocate more than it did.
	owner *fileLocker
	proc  sim.Proc
}

func (e *env) value(p part) string {
	switch p.name {
	case "":
		return p.lit
	case phKey:
		return e.p.Key
	case phToken:
		return e.tok()
	case phOwner:
		if e.owner == nil {
			return ""
		}
		return e.owner.ownerID(e.proc)
	case phPid:
		if e.owner == nil {
			return ""
		}
		return e.owner.pidOf(e.proc)
	}
	return strconv.FormatInt(e.number(p.name)+p.offset, 10)
}

// number is a numeric placeholder's value. Counts of the TTL round up and
// are at least 1, as EXPIRE and PX take them (the built-ins' seconds() and
// millis()); clock readings truncate, as time() and currentTimeMillis() do.
func (e *env) number(name string) int64 {
	res := e.p.Resolution
	switch name {
	case phTTL:
		return max(locks.Units(e.p.TTL, res), 1)
	case phTTLms:
		return max(locks.Units(e.p.TTL, time.Millisecond), 1)
	case phTTLs:
		return max(locks.Units(e.p.TTL, time.Second), 1)
	case phNow:
		return locks.Stamp(e.now, res)
	case phNowMs:
		return locks.Stamp(e.now, time.Millisecond)
	case phNowS:
		return locks.Stamp(e.now, time.Second)
	case phExpireAt:
		return locks.Stamp(e.now, res) + max(locks.Units(e.p.TTL, res), 1)
	case phExpireAtMs:
		return locks.Stamp(e.now, time.Millisecond) + max(locks.Units(e.p.TTL, time.Millisecond), 1)
	case phExpireAtS:
		return locks.Stamp(e.now, time.Second) + max(locks.Units(e.p.TTL, time.Second), 1)
	}
	return 0 // parseTemplate admits no other name
}

func (t template) expand(e *env) string {
	if len(t.parts) == 1 {
		return e.value(t.parts[0])
	}
	var b strings.Builder
	for _, p := range t.parts {
		b.WriteString(e.value(p))
	}
	return b.String()
}

// String writes the template back as a file has it.
func (t template) String() string {
	var b strings.Builder
	for _, p := range t.parts {
		switch {
		case p.name == "":
			b.WriteString(strings.NewReplacer("{", "{{", "}", "}}").Replace(p.lit))
		case p.offset > 0:
			fmt.Fprintf(&b, "{%s+%d}", p.name, p.offset)
		case p.offset < 0:
			fmt.Fprintf(&b, "{%s%d}", p.name, p.offset)
		default:
			b.WriteString("{" + p.name + "}")
		}
	}
	return b.String()
}
