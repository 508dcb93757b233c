package foreign

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/userfile"
	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
)

// Lang is a language a worker runs.
type Lang string

const (
	Python Lang = "python"
	Node   Lang = "node"
	PHP    Lang = "php"
)

// Program is a lock program: a file of lock code in its own language that
// defines acquire and release (and optionally extend), with a header that
// says what the lock is (Meta).
type Program struct {
	Path   string // absolute
	Lang   Lang
	SHA256 string // of the file's bytes
	Meta   Meta
}

// Meta is what a program's header says of its lock, in lines such as
//
//	# locksim: ttl=3s lifetime=5s resolution=1s expiry=timestamp
//	# locksim: source=002_8a9477ba888b29a3.txt
//
// (// for JavaScript, // or # for PHP) among the file's first 40 lines: what the Go side
// cannot learn from code it does not run, and a run's assumptions need.
type Meta struct {
	TTL        time.Duration // the lease the lock takes (ttl=)
	Lifetime   time.Duration // how long a lease lasts unreleased, 0: the TTL (lifetime=)
	Resolution time.Duration // the unit of timestamps it writes (resolution=)
	Expiry     locks.Expiry  // what ends an abandoned lease (expiry=ttl|timestamp|both|none)
	Nodes      int           // the nodes it runs on; 0: one (nodes=)
	Key        string        // the lock's key, for reports (key=)
	Source     string        // a document's file name or a library release (source=, the rest of the line)
	Summary    string        // one line (summary=, the rest of the line)
	Files      []string      // files the program reads, in its folder, for its sum (files=a.py,b.lua)
	// extends: the program defines extend (extend=yes): the lease is
	// renewed by the run's watchdog (a scenario's renew_every:).
	extends bool
	// params: the program reads its TTL from locksim.params (params=yes),
	// so a scenario's ttl: reaches it.
	params bool
}

// comment is how a line comment starts in the language.
func (l Lang) comment() string {
	if l == Node || l == PHP {
		return "//"
	}
	return "#"
}

// LangOf is the language of a program file, by its extension.
func LangOf(path string) (Lang, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".py":
		return Python, true
	case ".js", ".cjs":
		return Node, true
	case ".php":
		return PHP, true
	}
	return "", false
}

// Load reads the program at path and its header.
func Load(path string) (*Program, error) {
	lang, ok := LangOf(path)
	if !ok {
		return nil, fmt.Errorf("%s: a lock program is a .py (Python), .js/.cjs (Node) or .php (PHP) file", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	src, err := userfile.Read(abs, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("lock program %s: %w", path, err)
	}
	meta, err := parseMeta(src, lang)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// The sum covers the files the program says it reads (files=), as an
	// algorithm file's covers its scripts: an edit to either is another lock.
	sum := sha256.New()
	sum.Write(src)
	for _, rel := range meta.Files {
		b, err := userfile.ReadIn(filepath.Dir(abs), rel, MaxFileSize)
		if err != nil {
			return nil, fmt.Errorf("%s: locksim: files=%s: %w", path, rel, err)
		}
		sum.Write(b)
	}
	return &Program{Path: abs, Lang: lang, SHA256: hex.EncodeToString(sum.Sum(nil)), Meta: meta}, nil
}

// MaxFileSize bounds a lock program and each file it reads.
const MaxFileSize = 1 << 20

// parseMeta reads the header lines.
func parseMeta(src []byte, lang Lang) (Meta, error) {
	m := Meta{Expiry: locks.ExpiryTTL}
	comments := []string{lang.comment()}
	if lang == PHP {
		comments = []string{"//", "#"}
	}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, 1<<20)
	seenTTL := false
	for line := 1; sc.Scan() && line <= 40; line++ {
		text := strings.TrimSpace(sc.Text())
		var rest string
		ok := false
		for _, c := range comments {
			if rest, ok = strings.CutPrefix(text, c); ok {
				break
			}
		}
		if !ok {
			continue
		}
		rest, ok = strings.CutPrefix(strings.TrimSpace(rest), "locksim:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		for i := 0; i < len(fields); i++ {
			k, v, ok := strings.Cut(fields[i], "=")
			if !ok {
				return m, fmt.Errorf("line %d: locksim: %q: want key=value", line, fields[i])
			}
			if k == "source" || k == "summary" { // the rest of the line
				v = strings.TrimSpace(strings.Join(append([]string{v}, fields[i+1:]...), " "))
				i = len(fields)
			}
			var err error
			switch k {
			case "ttl":
				m.TTL, err = positive(v)
				seenTTL = true
			case "lifetime":
				m.Lifetime, err = positive(v)
			case "resolution":
				m.Resolution, err = positive(v)
			case "nodes":
				m.Nodes, err = strconv.Atoi(v)
				if err == nil && (m.Nodes < 1 || m.Nodes > 16) {
					err = fmt.Errorf("want 1 to 16")
				}
			case "expiry":
				m.Expiry, err = expiryOf(v)
			case "key":
				m.Key = v
			case "files":
				m.Files = strings.Split(v, ",")
				for _, f := range m.Files {
					if err == nil {
						err = userfile.Local(f)
					}
				}
			case "extend":
				m.extends, err = yesNo(v)
			case "params":
				m.params, err = yesNo(v)
			case "source":
				m.Source = v
			case "summary":
				m.Summary = v
			default:
				return m, fmt.Errorf("line %d: locksim: unknown key %q (want ttl, lifetime, resolution, nodes, expiry, key, extend, params, files, source, summary)", line, k)
			}
			if err != nil {
				return m, fmt.Errorf("line %d: locksim: %s=%s: %v", line, k, v, err)
			}
		}
	}
	if !seenTTL && m.Expiry != locks.ExpiryNone {
		return m, fmt.Errorf("no header line gives the lock's TTL (# locksim: ttl=10s), which its assumptions are measured against")
	}
	return m, nil
}

func yesNo(v string) (bool, error) {
	switch v {
	case "yes":
		return true, nil
	case "no":
		return false, nil
	}
	return false, fmt.Errorf("want yes or no")
}

func positive(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err == nil && (d <= 0 || d > 24*time.Hour) {
		err = fmt.Errorf("want a duration above 0 and at most 24h")
	}
	return d, err
}

func expiryOf(v string) (locks.Expiry, error) {
	switch v {
	case "ttl":
		return locks.ExpiryTTL, nil
	case "timestamp":
		return locks.ExpiryTimestamp, nil
	case "both":
		return locks.ExpiryBoth, nil
	case "none":
		return locks.ExpiryNone, nil
	}
	return 0, fmt.Errorf("want ttl, timestamp, both or none")
}

// Algorithm is the program as a lock the runs and searches take: its name
// is "program:" and the file's name, its defaults and assumptions the
// header's. Each process incarnation's Locker runs the program in a worker
// of its own, started by start.
func (p *Program) Algorithm(start Starter) locks.Algorithm {
	m := p.Meta
	key := m.Key
	if key == "" {
		key = "lock"
	}
	source := m.Source
	if source == "" {
		source = filepath.Base(p.Path)
	}
	summary := m.Summary
	if summary == "" {
		summary = fmt.Sprintf("%s lock program %s", p.Lang, filepath.Base(p.Path))
	}
	a := locks.Algorithm{
		Name:     "program:" + filepath.Base(p.Path),
		Source:   source,
		Summary:  summary,
		Defaults: locks.Params{Key: key, TTL: m.TTL, Resolution: m.Resolution, Nodes: max(m.Nodes, 1)},
		Assumes:  locks.Assumptions{Expiry: m.Expiry},
	}
	lifetime := func(q locks.Params) time.Duration {
		switch {
		case m.Expiry == locks.ExpiryNone:
			return 0
		case m.Lifetime > 0:
			return m.Lifetime
		}
		return q.TTL
	}
	// The program's TTL is in its code: a scenario's ttl: reaches it only
	// through locksim.params, which a program says it reads (params=yes).
	check := func(q locks.Params) error {
		if q.TTL != m.TTL && !m.params && m.Expiry != locks.ExpiryNone {
			return fmt.Errorf("ttl %s: %s takes its own TTL of %s and reads no locksim.params (header: %s locksim: params=yes)", q.TTL, filepath.Base(p.Path), m.TTL, p.Lang.comment())
		}
		return nil
	}
	a = locks.Custom(a, lifetime, m.Nodes > 0, check)
	return locks.Define(a, func(q locks.Params) sim.Locker { return newLocker(p, start, q) })
}
