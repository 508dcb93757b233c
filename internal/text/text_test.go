package text

import (
	"testing"
	"time"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{"": "", "one": "one", "one\ntwo": "one", "one\r\ntwo": "one", "\nrest": ""} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPluralAndCount(t *testing.T) {
	cases := []struct {
		n    int
		want string
	}{{0, "0 processes"}, {1, "1 process"}, {2, "2 processes"}}
	for _, c := range cases {
		if got := Count(c.n, "process", "es"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if Plural(1, "s") != "" || Plural(3, "s") != "s" {
		t.Error("Plural")
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"token.0": "token.0", "token.0\n0": `token.0\n0`, "a\r\nb\x00c\td": `a\r\nb\x00c\td`, "ü → é": "ü → é",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSecondsRoundToMicroseconds(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want float64
	}{{5631965943 * time.Nanosecond, 5.631966}, {time.Second, 1}, {1500 * time.Nanosecond, 0.000002}} {
		if got := Seconds(c.d); got != c.want {
			t.Errorf("Seconds(%v) = %v, want %v", c.d, got, c.want)
		}
	}
}
