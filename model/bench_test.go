package model

import (
	"fmt"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// busyHistory is a clean run with 10,000 lock operations: four processes take
// the lock in turn, the next one already waiting in Acquire, a third failing
// to acquire meanwhile; every hold reads and writes the counter and the
// commands are recorded.
func busyHistory(holds int) sim.History {
	b := newHist("c1", "c2", "c3", "c4")
	held := keyVal("", 10*time.Second)
	b.acquire(0, ms(0), ms(2), 1)
	for r := range holds {
		p, next, loser := r%4, (r+1)%4, (r+2)%4
		t := ms(8 * r)
		held.Value = fmt.Sprint("tok-", p)
		b.cmd(p, 0, t+ms(1), held, "SET", "lock", held.Value, "NX", "PX", "10000")
		b.cs(p, t+ms(2), t+ms(5), int64(r), int64(r+1), true)
		b.cmd(loser, 0, t+ms(3), held, "SET", "lock", "x", "NX", "PX", "10000").failAcquire(loser, t+ms(3), t+ms(4))
		b.cmd(p, 0, t+ms(6), noKey, "EVAL", "release", "1", "lock", held.Value).release(p, t+ms(5), t+ms(7))
		if r+1 < holds {
			b.acquire(next, t+ms(4), t+ms(8+2), int64(r+2))
		}
	}
	return b.build()
}

func TestBusyHistoryIsSafe(t *testing.T) {
	v := Check(busyHistory(500), Options{TTL: 10 * time.Second})
	if v.Verdict != VerdictSafe || v.Linearizable != Yes || v.ResourceLinearizable != Yes {
		t.Fatalf("got %+v", v)
	}
}

func BenchmarkCheck10k(b *testing.B) {
	h := busyHistory(5000) // 5,000 acquires + 5,000 releases
	b.ResetTimer()
	for range b.N {
		if v := Check(h, Options{TTL: 10 * time.Second}); v.Linearizable != Yes {
			b.Fatalf("got %+v", v)
		}
	}
}

func BenchmarkCheck10kSkipPorcupine(b *testing.B) {
	h := busyHistory(5000)
	b.ResetTimer()
	for range b.N {
		if v := Check(h, Options{TTL: 10 * time.Second, SkipPorcupine: true}); v.Verdict != VerdictSafe {
			b.Fatalf("got %+v", v)
		}
	}
}
