package reports

import (
	"testing"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// A promoted replica's copy of the key is drawn from when the node answers
// again, and only if its TTL has not run out by then: here the replica has
// c1's key (TTL 3s) when the primary is lost at 2ms, and node0 answers only
// at 10.002s. Nothing may be drawn on node0 after the outage, and no span
// may end before it begins.
func TestFailoverCopyExpiredWhileDown(t *testing.T) {
	o := fromYAML(t, "failover-copy-expired", `name: failover-copy-expired
algorithm: set-nx-px-token
params:
  ttl: 3s
seed: 1
duration: 20s
nodes:
  - replicas: 1
    replication_lag: {min: 0s, max: 0s}
clients:
  - name: c1
    iterations: 1
    work: 1s
network:
  request: 1ms
  reply: 1ms
  timeout: 1s
faults:
  - kind: failover
    node: 0
    for: 10s
    on: {client: c1, point: acquired, n: 1}
`, model.Options{SkipPorcupine: true})
	p := newPicture(o)
	copied := false
	for _, e := range o.Result.History.Events {
		if e.Kind == sim.KindFault && e.Fault == fault.Failover {
			copied = e.Value > 0 && e.Key.Exists
		}
	}
	if !copied {
		t.Fatal("the promoted replica has no copy of the key: the test checks nothing")
	}
	node0 := p.nodes[0]
	for _, sp := range node0.spans {
		if sp.to < sp.from {
			t.Errorf("node0 span %+v ends before it begins", sp)
		}
		if !sp.down && sp.to > 3000*ms {
			t.Errorf("node0 span %+v: the key is drawn after its TTL ran out", sp)
		}
	}
}

// A failover of a node with no replica is an outage only: the node keeps
// c1's key (TTL 30s), so once it answers again at 1.002s the lane draws the
// key again (the old lane drew it absent from the outage on).
func TestFailoverWithoutReplicaKeepsKey(t *testing.T) {
	o := fromYAML(t, "failover-no-replica", `name: failover-no-replica
algorithm: set-nx-px-token
params:
  ttl: 30s
seed: 1
duration: 20s
clients:
  - name: c1
    iterations: 1
    work: 3s
network:
  request: 1ms
  reply: 1ms
  timeout: 1s
faults:
  - kind: failover
    node: 0
    for: 1s
    on: {client: c1, point: acquired, n: 1}
`, model.Options{SkipPorcupine: true})
	var failAt, back sim.Time = -1, -1
	for _, e := range o.Result.History.Events {
		if e.Kind == sim.KindFault && e.Fault == fault.Failover {
			if e.Value != 0 {
				t.Fatalf("failover promoted lane %d: the test needs a node with no replica", e.Value)
			}
			failAt, back = e.At, e.At+sim.Time(e.Dur)
		}
	}
	if failAt < 0 {
		t.Fatal("no failover fired: the test checks nothing")
	}
	p := newPicture(o)
	drawnAfter := false
	for _, sp := range p.nodes[0].spans {
		if !sp.down && sp.v >= 0 && sp.from == back && sp.to > back {
			drawnAfter = true
		}
	}
	marked := false
	for _, m := range p.nodes[0].marks {
		marked = marked || m.detail == "failover: no replica to promote, down 1s"
	}
	if !marked {
		t.Errorf("node0's marks %+v: want the failover said to promote nothing", p.nodes[0].marks)
	}
	if !drawnAfter {
		t.Errorf("node0's key is not drawn from %v, when the node answers again after a failover with no replica: spans %+v",
			back, p.nodes[0].spans)
	}
}
