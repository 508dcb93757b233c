package scenarios

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/locks"
)

// A summary or narrative states the lock's parameters through placeholders,
// so that a run with another lock, or with other params, is told in its own
// numbers: "C1 pauses 35 s holding a {ttl} SET NX PX lock" says "a 10 s
// lock" for a lock file with a 10 s TTL. A placeholder is a parameter's name
// in braces, optionally with an offset in the parameter's unit:
//
//	{ttl} 30 s        {ttl_ms} 30000      {ttl_s} 30      {ttl+4s} 34 s
//	{lifetime} 31 s   {key} lock.foo      {retry_sleep} 200 ms
//	{retries} 3       {nodes} 5           {ttl_s+1} 31
//
// Parse words the scenario's own Summary and Narrative with the lock it
// names (so every reader of those fields sees numbers) and keeps the
// templates; Wording words them for the lock a run uses.

// placeholder matches one placeholder: its name and its offset.
var placeholder = regexp.MustCompile(`\{([a-z_][a-z_0-9]*)([+-][0-9a-z.]+)?\}`)

// placeholderNames are the names a placeholder may use, in the order an
// error lists them.
var placeholderNames = []string{"ttl", "ttl_ms", "ttl_s", "lifetime", "key", "retry_sleep", "retries", "nodes"}

// templates are a scenario's summary and narrative as its file wrote them,
// and as Parse worded them for the scenario's own lock.
type templates struct {
	summary, narrative           string
	shownSummary, shownNarrative string
}

// prepareWording checks the placeholders of the summary and narrative and
// words them for the lock the scenario names; a scenario that names none
// keeps them until a run words them.
func (s *Scenario) prepareWording() error {
	if !placeholder.MatchString(s.Summary) && !placeholder.MatchString(s.Narrative) {
		return nil
	}
	t := &templates{summary: s.Summary, narrative: s.Narrative, shownSummary: s.Summary, shownNarrative: s.Narrative}
	for _, f := range [...]struct{ field, text string }{{"summary", s.Summary}, {"narrative", s.Narrative}} {
		if _, err := word(f.text, locks.Params{}, 0); err != nil {
			return fieldError(f.field, "%v", err)
		}
	}
	if s.Algorithm != "" {
		algo, err := locks.Lookup(s.Algorithm)
		if err != nil {
			return fieldError("algorithm", "%v", err)
		}
		p := algo.With(s.LockParams())
		life := algo.Lifetime(s.LockParams())
		t.shownSummary, _ = word(s.Summary, p, life)
		t.shownNarrative, _ = word(s.Narrative, p, life)
		s.Summary, s.Narrative = t.shownSummary, t.shownNarrative
	}
	s.words = t
	return nil
}

// Wording is the scenario's summary and narrative worded for a run of p:
// its lock's parameters, the scenario's over the lock's own. A summary or
// narrative set after Parse (a counterexample's) is returned as it is.
func (s *Scenario) Wording(p *Prepared) (summary, narrative string) {
	summary, narrative = s.Summary, s.Narrative
	if s.words == nil || p == nil {
		return summary, narrative
	}
	life := p.Lifetime()
	if summary == s.words.shownSummary {
		summary, _ = word(s.words.summary, p.Params, life)
	}
	if narrative == s.words.shownNarrative {
		narrative, _ = word(s.words.narrative, p.Params, life)
	}
	return summary, narrative
}

// MarshalYAML writes the templates in place of the worded text, so that a
// built-in written out and read back is the same scenario.
func (s *Scenario) MarshalYAML() (any, error) {
	type plain Scenario // without this method
	c := plain(*s)
	if s.words != nil {
		if c.Summary == s.words.shownSummary {
			c.Summary = s.words.summary
		}
		if c.Narrative == s.words.shownNarrative {
			c.Narrative = s.words.narrative
		}
	}
	return &c, nil
}

// word fills text's placeholders from p and the lock's lifetime.
func word(text string, p locks.Params, life time.Duration) (string, error) {
	var bad error
	out := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		sub := placeholder.FindStringSubmatch(m)
		v, err := placeholderValue(sub[1], sub[2], p, life)
		if err != nil && bad == nil {
			bad = fmt.Errorf("%s: %v", m, err)
		}
		return v
	})
	return out, bad
}

func placeholderValue(name, off string, p locks.Params, life time.Duration) (string, error) {
	number := func(n int64, unit string) (string, error) {
		if off != "" {
			k, err := strconv.ParseInt(off, 10, 64)
			if err != nil {
				return "", fmt.Errorf("want a whole number of %s after %s", unit, name)
			}
			n += k
		}
		return strconv.FormatInt(n, 10), nil
	}
	duration := func(d time.Duration) (string, error) {
		if off != "" {
			k, err := time.ParseDuration(off)
			if err != nil {
				return "", fmt.Errorf("want a duration (4s, -500ms) after %s", name)
			}
			d += k
		}
		return spoken(d), nil
	}
	switch name {
	case "ttl":
		return duration(p.TTL)
	case "lifetime":
		return duration(life)
	case "retry_sleep":
		return duration(p.RetrySleep)
	case "ttl_ms":
		return number(p.TTL.Milliseconds(), "milliseconds")
	case "ttl_s":
		return number(int64(p.TTL/time.Second), "seconds")
	case "retries":
		return number(int64(p.Retries), "tries")
	case "nodes":
		return number(int64(p.Nodes), "nodes")
	case "key":
		if off != "" {
			return "", fmt.Errorf("the key takes no offset")
		}
		return p.Key, nil
	}
	return "", fmt.Errorf("unknown placeholder (valid: %s)", strings.Join(placeholderNames, ", "))
}

// spoken is a duration as the narratives write one: "30 s", "3.5 s",
// "200 ms".
func spoken(d time.Duration) string {
	switch {
	case d == 0:
		return "0 s"
	case d%time.Second == 0 || d >= time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
	case d%time.Millisecond == 0:
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	}
	return d.String()
}
