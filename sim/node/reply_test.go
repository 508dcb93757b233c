package node

import (
	"testing"

	"github.com/locksim/locksim/internal/fuzzing"
)

func TestParseReply(t *testing.T) {
	tests := []struct {
		in   string
		want Reply
		rest string
		bad  bool
	}{
		{in: "+OK\r\n", want: status("OK")},
		{in: "-ERR no\r\n", want: errr("ERR no")},
		{in: ":-42\r\n", want: integer(-42)},
		{in: "$3\r\nabc\r\n", want: bulk("abc")},
		{in: "$0\r\n\r\n", want: bulk("")},
		{in: "$4\r\na\r\nb\r\n", want: bulk("a\r\nb")},
		{in: "$-1\r\n", want: nilReply},
		{in: "*-1\r\n", want: nilReply},
		{in: "_\r\n", want: nilReply},
		{in: ",1.5\r\n", want: bulk("1.5")},
		{in: "*0\r\n", want: array()},
		{in: "*3\r\n:1\r\n$-1\r\n*2\r\n$1\r\nx\r\n*1\r\n*-1\r\n", want: array(integer(1), nilReply, array(bulk("x"), array(nilReply)))},
		{in: "%1\r\n+k\r\n:1\r\n", want: array(status("k"), integer(1))},
		{in: "~1\r\n:1\r\n", want: array(integer(1))},
		{in: "+OK\r\n:1\r\n", want: status("OK"), rest: ":1\r\n"},
		{in: "", bad: true},
		{in: "+OK", bad: true},
		{in: "?\r\n", bad: true},
		{in: ":x\r\n", bad: true},
		{in: "$5\r\nabc\r\n", bad: true},
		{in: "$x\r\n", bad: true},
		{in: "*2\r\n:1\r\n", bad: true},
		{in: "*9223372036854775807\r\n", bad: true},
		{in: "%9223372036854775807\r\n:1\r\n:1\r\n", bad: true},
		{in: "$9223372036854775807\r\nabc\r\n", bad: true},
	}
	for _, tt := range tests {
		got, rest, err := parseReply([]byte(tt.in))
		if tt.bad {
			if err == nil {
				t.Errorf("parseReply(%q) = %s, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || !sameReply(got, tt.want) || string(rest) != tt.rest {
			t.Errorf("parseReply(%q) = %s, %q, %v; want %s, %q", tt.in, got, rest, err, tt.want, tt.rest)
		}
	}
}

func TestReplyString(t *testing.T) {
	r := array(status("OK"), errr("ERR x"), integer(3), bulk("b"), nilReply, array())
	if got, want := r.String(), `[OK, (error) ERR x, (integer) 3, "b", (nil), []]`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}

func FuzzParseReply(f *testing.F) {
	fuzzing.ShortMinimize(f)
	for _, s := range []string{"+OK\r\n", "*2\r\n:1\r\n$-1\r\n", "%1\r\n+k\r\n:1\r\n", "$3\r\nabc\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, rest, err := parseReply(b)
		if err == nil {
			_ = r.String()
			if len(rest) > len(b) {
				t.Fatalf("rest longer than input")
			}
		}
	})
}
