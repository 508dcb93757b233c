package resp

import (
	"bufio"
	"errors"
	"strings"
	"testing"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

func TestAppendCommand(t *testing.T) {
	got := string(AppendCommand(nil, "SET", "k", "", "é"))
	want := "*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n$2\r\né\r\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestReadRaw(t *testing.T) {
	replies := []string{
		"+OK\r\n", "-ERR no\r\n", ":-12\r\n", "$-1\r\n", "$0\r\n\r\n", "$5\r\na\r\nbc\r\n",
		"*-1\r\n", "*0\r\n", "*3\r\n:1\r\n*2\r\n$1\r\na\r\n$-1\r\n+x\r\n",
		"_\r\n", ",3.5\r\n", "%1\r\n+k\r\n:1\r\n",
	}
	in := strings.Join(replies, "")
	r := bufio.NewReader(strings.NewReader(in))
	for _, want := range replies {
		got, err := ReadRaw(r)
		if err != nil || string(got) != want {
			t.Fatalf("ReadRaw = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := ReadRaw(r); err == nil {
		t.Error("ReadRaw at the end: no error")
	}
}

func TestReadRawMalformed(t *testing.T) {
	for _, in := range []string{"?x\r\n", "+OK\n", "$3\r\nabcd\r\n", "$x\r\n", "*y\r\n", "$999999999999\r\n"} {
		_, err := ReadRaw(bufio.NewReader(strings.NewReader(in)))
		if !errors.Is(err, ErrProtocol) {
			t.Errorf("ReadRaw(%q) = %v, want ErrProtocol", in, err)
		}
	}
	for _, in := range []string{"$3\r\nab", "*2\r\n:1\r\n", "+OK"} {
		if _, err := ReadRaw(bufio.NewReader(strings.NewReader(in))); err == nil {
			t.Errorf("ReadRaw(%q): no error on a truncated reply", in)
		}
	}
}
