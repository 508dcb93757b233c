package resp

import (
	"strings"
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
		got, rest, err := ParseReply([]byte(tt.in))
		if tt.bad {
			if err == nil {
				t.Errorf("ParseReply(%q) = %s, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || !got.Equal(tt.want) || string(rest) != tt.rest {
			t.Errorf("ParseReply(%q) = %s, %q, %v; want %s, %q", tt.in, got, rest, err, tt.want, tt.rest)
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
		r, rest, err := ParseReply(b)
		if err == nil {
			_ = r.String()
			if len(rest) > len(b) {
				t.Fatalf("rest longer than input")
			}
		}
	})
}

func bulk(s string) Reply    { return Reply{Kind: Bulk, Str: s} }
func status(s string) Reply  { return Reply{Kind: Status, Str: s} }
func integer(i int64) Reply  { return Reply{Kind: Int, Int: i} }
func errr(s string) Reply    { return Reply{Kind: Error, Str: s} }
func array(e ...Reply) Reply { return Reply{Kind: Array, Elems: e} }

var nilReply = Reply{Kind: Nil}

// TestAppendReplyReadsBack checks the encoder against the parser: what one
// writes the other reads back.
func TestAppendReplyReadsBack(t *testing.T) {
	for _, r := range []Reply{
		nilReply, status("OK"), errr("ERR x"), integer(-3), bulk(""), bulk("a\r\nb"),
		array(), array(integer(1), array(bulk("x"), nilReply), status("s")),
	} {
		got, rest, err := ParseReply(AppendReply(nil, r))
		if err != nil || len(rest) != 0 || !got.Equal(r) {
			t.Errorf("%s: read back %s, rest %q, %v", r, got, rest, err)
		}
	}
}

func TestAppendReplyEncodesEveryKind(t *testing.T) {
	r := array(nilReply, status("OK"), errr("ERR x"), integer(-7), bulk("a\r\nb"))
	want := "*5\r\n$-1\r\n+OK\r\n-ERR x\r\n:-7\r\n$4\r\na\r\nb\r\n"
	if got := string(AppendReply(nil, r)); got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

func TestParseCommandTakesWholeArraysOnly(t *testing.T) {
	wire := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv1\r\n*1\r\n$4\r\nPING\r\n"
	args, n, err := ParseCommand([]byte(wire))
	if err != nil || strings.Join(args, " ") != "SET k v1" || n != len("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv1\r\n") {
		t.Fatalf("first command: %q %d %v", args, n, err)
	}
	args, _, err = ParseCommand([]byte(wire[n:]))
	if err != nil || strings.Join(args, " ") != "PING" {
		t.Fatalf("second command: %q %v", args, err)
	}
	for cut := 1; cut < n; cut++ { // every prefix is incomplete, never an error
		if args, m, err := ParseCommand([]byte(wire[:cut])); err != nil || m != 0 || args != nil {
			t.Fatalf("prefix of %d bytes: %q %d %v", cut, args, m, err)
		}
	}
	for _, bad := range []string{"PING\r\n", "*1\r\n:3\r\n", "*x\r\n", "*1\r\n$-4\r\n"} {
		if _, _, err := ParseCommand([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestCommandsReadBack: what AppendCommand writes, ParseCommand reads.
func TestCommandsReadBack(t *testing.T) {
	args := []string{"SET", "k", "", "a\r\nb"}
	got, n, err := ParseCommand(AppendCommand(nil, args...))
	if err != nil || n != len(AppendCommand(nil, args...)) || strings.Join(got, "|") != strings.Join(args, "|") {
		t.Errorf("read back %q, %d bytes, %v", got, n, err)
	}
}

func TestReplyEqual(t *testing.T) {
	a := Reply{Kind: Array, Elems: []Reply{bulk("x"), integer(1)}}
	if !a.Equal(Reply{Kind: Array, Elems: []Reply{bulk("x"), integer(1)}}) || !(Reply{Kind: Array}).Equal(Reply{Kind: Array, Elems: []Reply{}}) {
		t.Error("equal replies differ")
	}
	for _, b := range []Reply{{Kind: Array, Elems: []Reply{bulk("x"), integer(2)}}, {Kind: Array, Elems: []Reply{bulk("x")}}, bulk("x")} {
		if a.Equal(b) {
			t.Errorf("%v equals %v", a, b)
		}
	}
}
