package realredis

import (
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/locksim/locksim/sim"
)

// Replication lag, made real. The simulation's replica applies each write
// of its primary's stream a lag after the primary ran it (replication.go).
// Real Redis has no such knob, and stopping the replica (SIGSTOP) for the
// lag would hold every write until it wakes, not each write its lag after
// it ran. So the replica reaches its primary through a lagLink, a loopback
// relay locksim runs: what the primary sends (the stream, and the GETACK a
// WAIT asks with) reaches the replica a lag later, drawn per read from the
// scenario's replication_lag and never overtaking what came before; what
// the replica sends (its PSYNC, its ACKs) goes straight back. A write is
// then applied, and acknowledged to WAIT, its lag after the primary ran it,
// as in simulation. When the primary dies (a failover), the link is cut and
// what it still held is dropped: the writes the replica had not received
// are lost with the primary, as the simulation's failover loses the entries
// no replica applied.
type lagLink struct {
	ln      net.Listener
	primary string
	lag     sim.Latency

	mu    sync.Mutex
	rng   *rand.Rand
	conns []net.Conn
	cut   bool
	wg    sync.WaitGroup
}

// newLagLink listens on a free loopback port for the replica and relays
// to primary.
func newLagLink(primary string, lag sim.Latency, seed uint64) (*lagLink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l := &lagLink{ln: ln, primary: primary, lag: lag, rng: rand.New(rand.NewPCG(seed, 0x6c6167))}
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

func (l *lagLink) port() int { return l.ln.Addr().(*net.TCPAddr).Port }

func (l *lagLink) accept() {
	defer l.wg.Done()
	for {
		rc, err := l.ln.Accept()
		if err != nil {
			return // cut or closed
		}
		pc, err := net.DialTimeout("tcp", l.primary, dialTimeout)
		if err != nil {
			rc.Close()
			continue
		}
		l.mu.Lock()
		if l.cut {
			l.mu.Unlock()
			rc.Close()
			pc.Close()
			return
		}
		l.conns = append(l.conns, rc, pc)
		l.mu.Unlock()
		l.wg.Add(2)
		go func() { // replica -> primary: at once
			defer l.wg.Done()
			buf := make([]byte, 32<<10)
			for {
				n, err := rc.Read(buf)
				if n > 0 {
					if _, werr := pc.Write(buf[:n]); werr != nil {
						break
					}
				}
				if err != nil {
					break
				}
			}
			rc.Close()
			pc.Close()
		}()
		go func() { // primary -> replica: each read a lag later, in order
			defer l.wg.Done()
			l.delay(pc, rc)
		}()
	}
}

type chunk struct {
	data []byte
	due  time.Time
}

// delay relays from to to, each read its lag after it arrived.
func (l *lagLink) delay(from, to net.Conn) {
	q := make(chan chunk, 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		broken := false
		for c := range q { // drained to the end, so the reader never blocks
			l.mu.Lock()
			cut := l.cut
			l.mu.Unlock()
			if cut || broken {
				continue // dropped with the primary
			}
			time.Sleep(time.Until(c.due))
			if _, err := to.Write(c.data); err != nil {
				broken = true
			}
		}
	}()
	var last time.Time
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			l.mu.Lock()
			lag := l.lag.Min
			if l.lag.Max > l.lag.Min {
				lag += time.Duration(l.rng.Int64N(int64(l.lag.Max-l.lag.Min) + 1))
			}
			l.mu.Unlock()
			due := time.Now().Add(lag)
			if due.Before(last) {
				due = last
			}
			last = due
			q <- chunk{data: append([]byte(nil), buf[:n]...), due: due}
		}
		if err != nil {
			break
		}
	}
	close(q)
	<-done
	to.Close()
}

// cutLink ends the link at once, dropping what it still held, and refuses
// the replica's reconnections: its primary is gone.
func (l *lagLink) cutLink() {
	l.mu.Lock()
	l.cut = true
	conns := l.conns
	l.mu.Unlock()
	l.ln.Close()
	for _, c := range conns {
		c.Close()
	}
}

// close cuts the link and waits for its goroutines.
func (l *lagLink) close() {
	l.cutLink()
	l.wg.Wait()
}
