package scenarios

import (
	"reflect"
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
