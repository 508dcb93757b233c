package strictjson

import (
	"strings"
	"testing"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

type inner struct {
	Fault string `json:"fault"`
	Count int    `json:"count,omitempty"`
}

type outer struct {
	Runs   int              `json:"runs"`
	Cells  []inner          `json:"cells"`
	ByName map[string]inner `json:"by_name"`
	Ptr    *inner           `json:"ptr"`
	Plain  string
	Hidden string `json:"-"`
	_      struct{}
}

func TestUnmarshal(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{`{"runs":1,"cells":[{"fault":"none","count":2}],"by_name":{"AnyCase":{"fault":"x"}},"ptr":{"fault":"y"},"Plain":"p"}`, ""},
		{`{"runs":1,"cells":null,"ptr":null}`, ""},
		{`{"Runs":1}`, `unknown field "Runs"`},
		{`{"runs":1,"cells":[{"fault":"none"},{"fAult":"none"}]}`, `cells[1]: unknown field "fAult"`},
		{`{"by_name":{"a":{"Fault":"x"}}}`, `by_name.a: unknown field "Fault"`},
		{`{"ptr":{"count":1,"other":2}}`, `ptr: unknown field "other"`},
		{`{"plain":"p"}`, `unknown field "plain"`},
		{`{"Hidden":"h"}`, `unknown field "Hidden"`},
		{`{"runs":"one"}`, `cannot unmarshal string`},
		{`{"runs":1} x`, `invalid character`},
	} {
		var o outer
		err := Unmarshal([]byte(c.in), &o)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.in, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one with %q", c.in, err, c.err)
		}
	}
	var o outer
	if err := Unmarshal([]byte(`{"runs":3,"cells":[{"fault":"net","count":2}],"Plain":"p"}`), &o); err != nil || o.Runs != 3 || o.Cells[0].Count != 2 || o.Plain != "p" {
		t.Errorf("decoded %+v, %v", o, err)
	}
}
