package text

import "testing"

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
