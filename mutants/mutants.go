// Package mutants puts classic lock mistakes into algorithm files, one at a
// time, by transforming the file: the mutation check that measures how many
// broken locks locksim's searches tell from the correct ones (its tests run
// the searches; docs/verdicts.md has the figure).
//
// An operator is a kind of mistake, not a list of edits: it finds every
// place in a file where the mistake can be made (each acquire command that
// sends NX, each TTL argument, each release that checks its owner, …) and
// makes one mutant per place.
package mutants

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/locks/algofile"
)

// Mutant is one algorithm file with one mistake put in.
type Mutant struct {
	Subject  string // the unmutated file's path
	Operator string // the Operator's Name
	Site     string // where in the file the mistake is: "acquire.command", "release"
	YAML     []byte // the mutated file
}

// Name is subject:operator@site, unique among a subject's mutants.
func (m Mutant) Name() string {
	return fmt.Sprintf("%s:%s@%s", strings.TrimSuffix(filepath.Base(m.Subject), ".yaml"), m.Operator, m.Site)
}

// Load parses the mutated file, reading its script files from the
// subject's folder.
func (m Mutant) Load() (locks.Algorithm, error) {
	dir := filepath.Dir(m.Subject)
	return algofile.ParseFile(m.Name(), m.YAML, func(rel string) ([]byte, error) {
		return os.ReadFile(filepath.Join(dir, rel))
	})
}

// Operator is one kind of mistake.
type Operator struct {
	Name    string // short: no-nx
	Mistake string // what the programmer got wrong, for the figure's table
	// sites lists the places in f where the mistake can be made, each with
	// the edit that makes it on a copy of the file.
	sites func(f *file) []site
}

type site struct {
	where string
	edit  func(root *yaml.Node)
}

// Operators are every kind of mistake, in the figure's order.
var Operators = []Operator{
	{"no-nx", "acquire without NX (SET overwrites a held key; a script's holder check removed)", noNX},
	{"no-ttl", "acquire without an expiry (PX/EX dropped; a script's PEXPIRE removed)", noTTL},
	{"ttl-unit", "TTL in the wrong unit (PX given seconds, EX given milliseconds)", ttlUnit},
	{"release-no-check", "release without the ownership check (plain DEL)", releaseNoCheck},
	{"extend-no-check", "extend without the ownership check (plain PEXPIRE)", extendNoCheck},
	{"extend-always-held", "an extend that reports success whatever happened", extendAlwaysHeld},
	{"shared-token", "one token shared by every client", sharedToken},
	{"quorum-off-by-one", "a quorum one node short of a majority", quorumOffByOne},
	{"no-validity", "the validity (elapsed + drift < TTL) check removed", noValidity},
	{"cleanup-deletes", "a cleanup after a failed try that deletes the key whoever holds it", cleanupDeletes},
	{"timeout-held", "a timed-out acquire counted as held", timeoutHeld},
	{"resend-acquire", "a timed-out acquire resent as is, its own key then found taken", resendAcquire},
}

// Mutate makes every mutant of the algorithm file at path: every operator
// at every site it applies to, in Operators order, then file order. Each
// is a mutant of that one place only.
func Mutate(path string) ([]Mutant, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &file{path: path, dir: filepath.Dir(path)}
	if err := yaml.Unmarshal(data, &f.doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.doc.Kind != yaml.DocumentNode || len(f.doc.Content) != 1 || f.doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a mapping", path)
	}
	var out []Mutant
	for _, op := range Operators {
		for _, s := range op.sites(f) {
			doc := clone(&f.doc)
			s.edit(doc.Content[0])
			// The mutant's own name, so that a comparison names which
			// side is which.
			if n := get(doc.Content[0], "name"); n != nil {
				set(doc.Content[0], "name", scalar(mutantName(n.Value, op.Name)))
			}
			var b bytes.Buffer
			enc := yaml.NewEncoder(&b)
			enc.SetIndent(2)
			if err := enc.Encode(doc); err != nil {
				return nil, fmt.Errorf("%s: %s@%s: %w", path, op.Name, s.where, err)
			}
			out = append(out, Mutant{Subject: path, Operator: op.Name, Site: s.where, YAML: b.Bytes()})
		}
	}
	return out, nil
}

// mutantName is a mutant's name: the lock's, marked with the operator,
// within an algorithm file's 64 characters.
func mutantName(lock, op string) string {
	n := lock + "-" + op
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

// file is an algorithm file being mutated.
type file struct {
	path, dir string
	doc       yaml.Node
}

func (f *file) root() *yaml.Node { return f.doc.Content[0] }

// Every edit works on a copy of the document and finds its node again by
// path from the root: a step is named by its operation and index.

func clone(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = clone(x)
	}
	return &c
}

// get is a mapping's value for key; nil when absent.
func get(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// set gives a mapping key a value, adding the key last when absent.
func set(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, scalar(key), v)
}

// del removes a mapping key.
func del(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
	}
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

func seq(vs ...string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, v := range vs {
		n.Content = append(n.Content, scalar(v))
	}
	return n
}

// parse reads a YAML fragment: an operation or a rule list written as a
// file would hold it.
func parse(src string) *yaml.Node {
	var d yaml.Node
	if err := yaml.Unmarshal([]byte(src), &d); err != nil {
		panic(err) // the fragments are constants here
	}
	return d.Content[0]
}

// stepRef names one step of an operation: the operation's own fields
// (index -1) or steps[index].
type stepRef struct {
	op    string
	index int
}

func (r stepRef) String() string {
	if r.index < 0 {
		return r.op
	}
	return fmt.Sprintf("%s.steps[%d]", r.op, r.index)
}

func (r stepRef) in(root *yaml.Node) *yaml.Node {
	op := get(root, r.op)
	if r.index < 0 {
		return op
	}
	return get(op, "steps").Content[r.index]
}

// steps lists the steps of an operation, in order.
func (f *file) steps(op string) []stepRef {
	o := get(f.root(), op)
	if o == nil {
		return nil
	}
	if s := get(o, "steps"); s != nil {
		refs := make([]stepRef, len(s.Content))
		for i := range refs {
			refs[i] = stepRef{op, i}
		}
		return refs
	}
	return []stepRef{{op, -1}}
}

// script is a step's script text, inline or read from its script_file;
// "" for a step that sends a command.
func (f *file) script(step *yaml.Node) string {
	if s := get(step, "script"); s != nil {
		return s.Value
	}
	if s := get(step, "script_file"); s != nil {
		b, err := os.ReadFile(filepath.Join(f.dir, s.Value))
		if err == nil {
			return string(b)
		}
	}
	return ""
}

// setScript makes a step's script inline, as text.
func setScript(step *yaml.Node, text string) {
	del(step, "script_file")
	set(step, "script", &yaml.Node{Kind: yaml.ScalarNode, Value: text, Style: yaml.LiteralStyle})
}

// scriptSites is one site per step of the operations whose script matches
// re, the edit replacing every match with repl.
func (f *file) scriptSites(ops []string, re *regexp.Regexp, repl, what string) []site {
	var out []site
	for _, op := range ops {
		for _, ref := range f.steps(op) {
			text := f.script(ref.in(f.root()))
			if text == "" || !re.MatchString(text) {
				continue
			}
			mutated := re.ReplaceAllString(text, repl)
			out = append(out, site{ref.String() + ".script: " + what, func(root *yaml.Node) {
				setScript(ref.in(root), mutated)
			}})
		}
	}
	return out
}

// commandArgs lists a step's command arguments (nil for a script step).
func commandArgs(step *yaml.Node) []string {
	c := get(step, "command")
	if c == nil {
		return nil
	}
	out := make([]string, len(c.Content))
	for i, x := range c.Content {
		out[i] = x.Value
	}
	return out
}

func setCommand(step *yaml.Node, args []string) { set(step, "command", seq(args...)) }

var (
	scriptSetNX  = regexp.MustCompile(`(?i)(["'])(m?)setnx(["'])`)
	scriptExists = regexp.MustCompile(`redis\.call\(\s*["']exists["']\s*,\s*KEYS\[1\]\s*\)\s*==\s*0`)
	scriptExpire = regexp.MustCompile(`(?i)(["'])p?expire(["'])`)
)

// noNX: the acquire takes the key whether or not someone holds it.
func noNX(f *file) []site {
	var out []site
	for _, ref := range f.steps("acquire") {
		args := commandArgs(ref.in(f.root()))
		for i, a := range args {
			switch {
			case strings.EqualFold(a, "NX"):
				out = append(out, site{fmt.Sprintf("%s.command[%d]: NX dropped", ref, i), func(root *yaml.Node) {
					setCommand(ref.in(root), slices.Delete(slices.Clone(args), i, i+1))
				}})
			case i == 0 && strings.EqualFold(a, "SETNX"):
				out = append(out, site{fmt.Sprintf("%s.command[0]: SETNX as SET", ref), func(root *yaml.Node) {
					m := slices.Clone(args)
					m[0] = "SET"
					setCommand(ref.in(root), m)
				}})
			}
		}
	}
	out = append(out, f.scriptSites([]string{"acquire"}, scriptSetNX, "$1${2}set$3", "SETNX as SET")...)
	return append(out, f.scriptSites([]string{"acquire"}, scriptExists, "true", "the holder check removed")...)
}

// noTTL: the acquire sets no expiry, so a crashed holder's key stays.
func noTTL(f *file) []site {
	var out []site
	for _, ref := range f.steps("acquire") {
		args := commandArgs(ref.in(f.root()))
		for i := 1; i+1 < len(args); i++ {
			if a := strings.ToUpper(args[i]); a == "PX" || a == "EX" {
				out = append(out, site{fmt.Sprintf("%s.command[%d]: %s dropped", ref, i, args[i]), func(root *yaml.Node) {
					setCommand(ref.in(root), slices.Delete(slices.Clone(args), i, i+2))
				}})
			}
		}
	}
	// A script's EXPIRE or PEXPIRE becomes EXISTS, which takes any
	// arguments as keys and changes nothing.
	return append(out, f.scriptSites([]string{"acquire"}, scriptExpire, "${1}exists$2", "(P)EXPIRE as EXISTS")...)
}

// ttlUnit: a TTL argument in the other unit: {ttl_ms} where seconds are
// read, or {ttl_s} where milliseconds are.
func ttlUnit(f *file) []site {
	var out []site
	swap := map[string]string{"{ttl_ms}": "{ttl_s}", "{ttl_s}": "{ttl_ms}"}
	for _, op := range []string{"acquire", "extend"} {
		for _, ref := range f.steps(op) {
			for _, field := range []string{"command", "args"} {
				list := get(ref.in(f.root()), field)
				if list == nil {
					continue
				}
				for i, x := range list.Content {
					to, ok := swap[x.Value]
					if !ok {
						continue
					}
					out = append(out, site{fmt.Sprintf("%s.%s[%d]: %s as %s", ref, field, i, x.Value, to), func(root *yaml.Node) {
						get(ref.in(root), field).Content[i] = scalar(to)
					}})
				}
			}
		}
	}
	return out
}

// releaseNoCheck: the release deletes the key whoever holds it.
func releaseNoCheck(f *file) []site {
	r := get(f.root(), "release")
	if r == nil || slices.Equal(commandArgs(r), []string{"DEL", "{key}"}) {
		return nil // already a plain DEL: the mistake is the lock's own
	}
	return []site{{"release", func(root *yaml.Node) {
		set(root, "release", parse(`{command: [DEL, "{key}"], errors: done}`))
	}}}
}

// extendNoCheck: the extend renews the key whoever holds it.
func extendNoCheck(f *file) []site {
	e := get(f.root(), "extend")
	if e == nil {
		return nil
	}
	return []site{{"extend", func(root *yaml.Node) {
		old := get(root, "extend")
		n := parse(`{command: [PEXPIRE, "{key}", "{ttl_ms}"], success: {equals: 1}, errors: lost}`)
		for _, keep := range []string{"every", "silent", "check_valid"} {
			if v := get(old, keep); v != nil {
				set(n, keep, v)
			}
		}
		set(root, "extend", n)
	}}}
}

// extendAlwaysHeld: every step of the extend answers held, whatever its
// reply, and so does a failed command.
func extendAlwaysHeld(f *file) []site {
	refs := f.steps("extend")
	if len(refs) == 0 {
		return nil
	}
	return []site{{"extend", func(root *yaml.Node) {
		for _, ref := range refs {
			s := ref.in(root)
			del(s, "success")
			set(s, "on", parse(`[{then: held}]`))
		}
		set(get(root, "extend"), "errors", scalar("held"))
	}}}
}

// sharedToken: every client writes the same token, so each takes the
// others' keys for its own. Only a lock with a per-client token can make
// the mistake: a timestamp template (setnx-getset's) is no identity.
func sharedToken(f *file) []site {
	t := get(f.root(), "token")
	switch {
	case t == nil, t.Kind == yaml.MappingNode, t.Value == "random", t.Value == "uuid",
		strings.Contains(t.Value, "{owner}"), strings.Contains(t.Value, "{pid}"):
	default:
		return nil
	}
	if !f.usesToken() {
		return nil
	}
	return []site{{"token", func(root *yaml.Node) { set(root, "token", scalar("shared")) }}}
}

// usesToken says whether any operation sends {token}.
func (f *file) usesToken() bool {
	for _, op := range []string{"acquire", "release", "extend"} {
		if o := get(f.root(), op); o != nil {
			b, _ := yaml.Marshal(o)
			if bytes.Contains(b, []byte("{token}")) {
				return true
			}
		}
	}
	return false
}

// quorumOffByOne: a lock on several nodes holds with one node fewer than
// its quorum: for a majority of N, N/2, which two clients can both reach.
func quorumOffByOne(f *file) []site {
	n := get(f.root(), "nodes")
	if n == nil {
		return nil
	}
	nodes, err := strconv.Atoi(n.Value)
	if err != nil || nodes < 2 {
		return nil
	}
	q := nodes/2 + 1
	if v := get(f.root(), "quorum"); v != nil && v.Value != "majority" {
		if q, err = strconv.Atoi(v.Value); err != nil {
			return nil
		}
	}
	if q < 2 {
		return nil
	}
	return []site{{fmt.Sprintf("quorum: %d as %d", q, q-1), func(root *yaml.Node) {
		set(root, "quorum", scalar(strconv.Itoa(q-1)))
	}}}
}

// noValidity: an acquire that took too long (or whose clock drifted) still
// counts as held.
func noValidity(f *file) []site {
	if get(f.root(), "valid_if") == nil {
		return nil
	}
	return []site{{"valid_if", func(root *yaml.Node) { del(root, "valid_if") }}}
}

// cleanupDeletes: after a failed try the client deletes the key, the
// holder's included: the cleanup a multi-node lock needs, without its
// ownership check (or added to a lock that had none).
func cleanupDeletes(f *file) []site {
	c := get(f.root(), "cleanup")
	if c != nil && slices.Equal(commandArgs(c), []string{"DEL", "{key}"}) {
		return nil
	}
	return []site{{"cleanup", func(root *yaml.Node) {
		n := parse(`{after: try, command: [DEL, "{key}"], errors: done}`)
		if old := get(root, "cleanup"); old != nil {
			if after := get(old, "after"); after != nil {
				set(n, "after", after)
			}
		}
		set(root, "cleanup", n)
	}}}
}

// timeoutHeld: a timed-out acquire (its command may or may not have run)
// counts as held.
func timeoutHeld(f *file) []site {
	a := get(f.root(), "acquire")
	if a == nil {
		return nil
	}
	if e := get(a, "errors"); e != nil && e.Value == "held" {
		return nil
	}
	return []site{{"acquire.errors", func(root *yaml.Node) { set(get(root, "acquire"), "errors", scalar("held")) }}}
}

// resendAcquire: the client library resends a timed-out acquire command
// byte for byte; after a lost reply the resend finds the key its first
// send took and answers as if someone else held it.
func resendAcquire(f *file) []site {
	var out []site
	for _, ref := range f.steps("acquire") {
		s := ref.in(f.root())
		if get(s, "resend") != nil || (get(s, "command") == nil && f.script(s) == "") {
			continue
		}
		out = append(out, site{ref.String() + ".resend", func(root *yaml.Node) { set(ref.in(root), "resend", scalar("3")) }})
	}
	return out
}
