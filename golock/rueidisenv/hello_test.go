package rueidisenv

import (
	"bufio"
	"io"
	"net"
	"testing"

	_ "github.com/locksim/locksim/internal/golden" // its -update flag: go test ./... -update runs everywhere
)

// TestHelloIsAnsweredOnTheConnection: the HELLO 2 rueidis starts a
// connection with is answered as a Redis without HELLO answers it and
// never reaches the node; the command after it, in the same write, does.
func TestHelloIsAnsweredOnTheConnection(t *testing.T) {
	client, node := net.Pipe()
	defer client.Close()
	defer node.Close()
	c := &helloConn{Conn: client}
	ping := "*1\r\n$4\r\nPING\r\n"
	got := make(chan string, 1)
	go func() {
		b := make([]byte, len(ping))
		_, err := io.ReadFull(node, b)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(b)
		node.Write([]byte("+PONG\r\n"))
	}()
	if _, err := c.Write(append(append([]byte{}, hello2...), ping...)); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g != ping {
		t.Fatalf("the node read %q, want only the PING", g)
	}
	r := bufio.NewReader(c)
	for _, want := range []string{noHello, "+PONG\r\n"} {
		line, err := r.ReadString('\n')
		if err != nil || line != want {
			t.Fatalf("read %q (%v), want %q", line, err, want)
		}
	}
	// A later HELLO is the node's to answer.
	go func() { b := make([]byte, len(hello2)); io.ReadFull(node, b); got <- string(b) }()
	if _, err := c.Write(hello2); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g != string(hello2) {
		t.Fatalf("a second HELLO: the node read %q", g)
	}
}
