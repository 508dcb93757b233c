package locks

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// seedDir is where the documents live next to the repository.
const seedDir = "../../shared/seeds"

func TestLookupUnknownListsNames(t *testing.T) {
	_, err := Lookup("setnx-nope")
	if err == nil {
		t.Fatal("unknown name: want an error")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	for _, n := range Names() {
		if !strings.Contains(msg, n) {
			t.Errorf("error %q does not list %s", msg, n)
		}
	}
}

func TestRegistry(t *testing.T) {
	want := []string{"setnx-del", "setnx-del-recover", "setnx-getset", "setnx-getset-checked", "setnx-expire",
		"java-getset", "php-eval", "python-setnx", "php-set-get", "set-nx-px-token", "fenced-token", "redlock",
		"token-extend", "hash-reentrant-watchdog", "set-nx-px-wait"}
	if got := strings.Join(Names(), " "); got != strings.Join(want, " ") {
		t.Fatalf("names in order:\n got %s\nwant %s", got, strings.Join(want, " "))
	}
	for _, a := range All() {
		t.Run(a.Name, func(t *testing.T) {
			if got, err := Lookup(a.Name); err != nil || got.Name != a.Name {
				t.Fatalf("Lookup(%q) = %q, %v", a.Name, got.Name, err)
			}
			if _, ok := LookupDocument(a.Source); !ok && a.Source != Reference {
				t.Fatalf("source %q is neither a document id (locks.Documents) nor %q", a.Source, Reference)
			}
			if a.Summary == "" || strings.Contains(a.Summary, "\n") {
				t.Errorf("summary must be one non-empty line: %q", a.Summary)
			}
			d := a.Defaults
			if d.Key == "" || d.TTL <= 0 || d.Retries == 0 {
				t.Errorf("defaults lack key, ttl or retries: %+v", d)
			}
			if err := a.Validate(Params{}); err != nil {
				t.Errorf("defaults do not validate: %v", err)
			}
			if a.Lifetime(Params{}) < 0 {
				t.Errorf("negative lifetime %s", a.Lifetime(Params{}))
			}
			if a.New(Params{}) == nil {
				t.Error("New made nothing")
			}
		})
	}
}

func TestLifetimeAndNodes(t *testing.T) {
	cases := []struct {
		name     string
		o        Params
		lifetime time.Duration
		nodes    int
	}{
		{"setnx-del", Params{}, 0, 1},
		{"setnx-del-recover", Params{}, 4 * time.Second, 1},
		{"setnx-getset", Params{}, 5 * time.Second, 1},
		{"python-setnx", Params{}, 5 * time.Second, 1},
		{"java-getset", Params{}, 60*time.Second + time.Millisecond, 1},
		{"php-eval", Params{}, 4 * time.Second, 1},
		{"php-set-get", Params{}, 31 * time.Second, 1},
		{"setnx-expire", Params{}, 60 * time.Second, 1},
		{"set-nx-px-token", Params{TTL: 5 * time.Second}, 5 * time.Second, 1},
		{"redlock", Params{}, 10 * time.Second, 5},
		{"redlock", Params{Nodes: 3}, 10 * time.Second, 3},
		{"setnx-getset", Params{TTL: 2 * time.Second, Resolution: time.Millisecond}, 2*time.Second + 2*time.Millisecond, 1},
	}
	for _, c := range cases {
		a, err := Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Lifetime(c.o); got != c.lifetime {
			t.Errorf("%s %+v: lifetime %s, want %s", c.name, c.o, got, c.lifetime)
		}
		if got := a.NodesNeeded(c.o); got != c.nodes {
			t.Errorf("%s %+v: nodes %d, want %d", c.name, c.o, got, c.nodes)
		}
	}
}

func TestWithKeepsDefaultsForZeroFields(t *testing.T) {
	a, _ := Lookup("php-eval")
	p := a.With(Params{TTL: 10 * time.Second, Retries: Forever})
	want := a.Defaults
	want.TTL, want.Retries = 10*time.Second, Forever
	if p != want {
		t.Fatalf("With = %+v, want %+v", p, want)
	}
	if a.With(Params{}) != a.Defaults {
		t.Fatal("With(zero) must be the defaults")
	}
}

func TestValidateRejects(t *testing.T) {
	cases := []struct {
		name string
		o    Params
		want string
	}{
		{"setnx-del", Params{TTL: -time.Second}, "ttl"},
		{"setnx-del", Params{Retries: -2}, "retries"},
		{"python-setnx", Params{RetrySleep: -1}, "retry sleep"},
		{"java-getset", Params{Resolution: -time.Millisecond}, "resolution"},
		{"redlock", Params{Nodes: -1}, "nodes"},
		{"php-eval", Params{Resolution: time.Millisecond}, "whole seconds"},
	}
	for _, c := range cases {
		a, _ := Lookup(c.name)
		err := a.Validate(c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), c.name+": ") {
			t.Errorf("%s %+v: error %v, want one naming the algorithm and %q", c.name, c.o, err, c.want)
		}
	}
}

// Every document is cited by what a reader can find: a title and a site;
// where the project's copies are at hand, each names one of them.
func TestDocuments(t *testing.T) {
	_, err := os.Stat(seedDir)
	haveSeeds := err == nil
	if !haveSeeds {
		t.Logf("%s is not here: the documents' copies are not checked", seedDir)
	}
	ids := map[string]bool{}
	for _, d := range Documents {
		if d.ID == "" || d.Title == "" || d.Site == "" || ids[d.ID] {
			t.Errorf("%+v: want a unique id, a title and a site", d)
		}
		ids[d.ID] = true
		if c := Cite(d.ID); !strings.Contains(c, d.Site) || strings.Contains(c, ".txt") {
			t.Errorf("Cite(%s) = %q", d.ID, c)
		}
		if haveSeeds {
			if _, err := os.Stat(filepath.Join(seedDir, d.Seed)); err != nil {
				t.Errorf("%s: %v", d.ID, err)
			}
		}
	}
}

// The Lua scripts must be the post's heredocs byte for byte.
func TestPHPScriptsVerbatim(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(seedDir, "001_fad345b61f1a9c64.txt"))
	if err != nil {
		t.Skipf("the document is not here: %v", err)
	}
	doc := string(b)
	heredocs := regexp.MustCompile(`(?s)<<<LUA\n(.*?)\nLUA;`).FindAllStringSubmatch(doc, -1)
	if len(heredocs) != 2 {
		t.Fatalf("found %d heredocs in the document, want 2", len(heredocs))
	}
	if heredocs[0][1] != phpEvalLockScript {
		t.Error("php_eval_acquire.lua differs from getLockScript()")
	}
	if heredocs[1][1] != phpEvalUnlockScript {
		t.Error("php_eval_unlock.lua differs from getUnLockScript()")
	}
}

// An Algorithm built outside the registry has no lifetime rule: the TTL.
func TestLifetimeOfUnregistered(t *testing.T) {
	a := Algorithm{Name: "mine", Defaults: Params{TTL: 7 * time.Second}}
	if got := a.Lifetime(Params{}); got != 7*time.Second {
		t.Fatalf("lifetime %s, want the TTL", got)
	}
	if a.NodesNeeded(Params{}) != 1 || a.Validate(Params{}) != nil {
		t.Fatal("an unregistered algorithm: one node, valid defaults")
	}
}
