package strictyaml

import (
	"errors"
	"strings"
	"testing"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

type doc struct {
	Name  string   `yaml:"name"`
	Count int      `yaml:"count"`
	Ratio float64  `yaml:"ratio"`
	On    bool     `yaml:"on"`
	List  []string `yaml:"list"`
}

func TestDecode(t *testing.T) {
	cases := []struct{ src, want string }{
		{"name: x\ncount: 2\n", ""},
		{"", "empty file"},
		{"name: x\nnmae: y\n", `line 2: unknown field "nmae"`},
		{"count: lots\n", `line 1: "lots" is not a whole number`},
		{"ratio: half\n", `line 1: "half" is not a number`},
		{"on: maybe\n", `line 1: "maybe" is not true or false`},
		{"list: {a: 1}\n", "line 1: a mapping where a list belongs"},
		{"name: x\n---\nname: y\n", "more than one YAML document"},
		{"name: [\n", "did not find expected node content"},
		{"count: x\nratio: y\n", "(and 1 more)"},
	}
	for _, c := range cases {
		var d doc
		err := Decode([]byte(c.src), &d)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.src, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: got %v, want %q", c.src, err, c.want)
		case err != nil && strings.ContainsAny(err.Error(), "\n") || err != nil && strings.Contains(err.Error(), "strictyaml."):
			t.Errorf("%q: not one line in the user's words: %q", c.src, err)
		}
	}
	if err := Decode(nil, &doc{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty input: %v, want ErrEmpty", err)
	}
}
