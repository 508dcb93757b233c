package model

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim"
)

func TestWritePorcupineHTML(t *testing.T) {
	h := newHist("c1", "c2").
		acquire(0, ms(0), ms(1), 7).fault(0, ms(2), fault.Pause, 3*time.Second).
		fault(1, ms(3), fault.ClientJump, -time.Second).
		failAcquire(1, ms(4), ms(5)).acquire(1, ms(6), ms(8), 8).
		fault(0, ms(3010), fault.Crash, 0).release(1, ms(3020), ms(3021)).
		nodeRestart(0, ms(3030)).build()
	var buf bytes.Buffer
	if err := WritePorcupineHTML(h, Options{}, &buf); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{"<html", "c1 acquire (fence 7)", "c1 crashed holding", "c2 release", "held by c1",
		"pause 3s", "clock -1s", "acquire failed", "crash", "node 0", "restart, data lost", "c1 and c2 both hold"} {
		if !strings.Contains(html, want) {
			t.Errorf("visualization lacks %q", want)
		}
	}
	// Lanes are named after the processes, not numbered.
	if !strings.Contains(html, `const locksimNames = ["c1","c2"]`) || strings.Count(html, "? locksimLane(i) :") != 2 {
		t.Error("porcupine's lanes are not named c1, c2")
	}
}

func TestWritePorcupineHTMLEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := WritePorcupineHTML(sim.History{}, Options{}, &buf); err != nil || buf.Len() == 0 {
		t.Fatalf("empty history: %v, %d bytes", err, buf.Len())
	}
}
