package scenarios

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseClasses(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		bad  bool
	}{
		{in: "none", want: []string{"none"}},
		{in: "pause,crash", want: []string{"crash", "pause"}},
		{in: "crash, crash ,none", want: []string{"crash"}},
		{in: "all", want: FaultClasses[1:]},
		{in: "net,all", want: FaultClasses[1:]},
		{in: "gc", bad: true},
		{in: "", bad: true},
		{in: "crash,", bad: true},
	}
	for _, c := range cases {
		got, err := ParseClasses(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("ParseClasses(%q) = %v, want an error", c.in, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseClasses(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// TestVocabularyIsOne fails when explore's classes and the vocabulary
// disagree: every class explore draws is a word of the vocabulary that it
// does not refuse, every word it does not refuse it draws, every part is a
// word of its own, and every word is offered by some command.
func TestVocabularyIsOne(t *testing.T) {
	for _, c := range FaultClasses {
		if k := ClassOf(c); k == nil || k.NotExplored != "" {
			t.Errorf("explore draws %q, which the vocabulary lacks or explore refuses", c)
		}
	}
	for _, k := range Vocabulary {
		if (k.NotExplored == "") != slices.Contains(FaultClasses, k.Name) {
			t.Errorf("%s: NotExplored %q, but in FaultClasses: %v", k.Name, k.NotExplored, slices.Contains(FaultClasses, k.Name))
		}
		if k.NotExplored != "" && k.NotProved != "" {
			t.Errorf("%s: no command offers it", k.Name)
		}
		if k.Faults == "" {
			t.Errorf("%s: says nothing of its faults", k.Name)
		}
		for _, p := range k.Parts {
			if ClassOf(p) == nil || p == k.Name {
				t.Errorf("%s: part %q is not another class", k.Name, p)
				continue
			}
			for _, kind := range ClassOf(p).Kinds() {
				if !slices.Contains(k.Kinds(), kind) {
					t.Errorf("%s: its part %s plans %s, which it does not", k.Name, p, kind)
				}
			}
		}
		for _, kind := range k.Kinds() {
			if !kind.Planned() {
				t.Errorf("%s: kind %s is not a file's fault kind", k.Name, kind.Name())
			}
		}
		if strings.Contains(k.Name, ",") || k.Name == "all" {
			t.Errorf("%q cannot be a class name", k.Name)
		}
	}
	// A class explore does not draw is refused by name, saying why.
	for _, c := range []string{ClassShortPause, ClassLongPause, ClassClientJump, ClassNodeJump} {
		_, err := ParseClasses("crash," + c)
		if err == nil || !strings.Contains(err.Error(), `"`+c+`"`) || !strings.Contains(err.Error(), "use ") {
			t.Errorf("ParseClasses(crash,%s): %v, want a refusal naming it and what to use", c, err)
		}
	}
}
