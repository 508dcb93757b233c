package scenarios

import (
	"testing"
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/locks"
)

// TestFileKindsBuild fails when a file's kind, aimed at a target it takes,
// builds a kind of another target, or when a kind a plan may hold is
// built by no file kind; and when a kind that breaks a plain TTL lock has
// no outsides entry saying so for one (InsideOf would let it in).
func TestFileKindsBuild(t *testing.T) {
	built := map[fault.Kind]bool{}
	for i := range fileFaults {
		k := &fileFaults[i]
		node := 0
		for _, f := range []Fault{{Kind: k.name, Client: "c1"}, {Kind: k.name, Node: &node}} {
			if k.onNode(&f) != (f.Node != nil) {
				continue // not a target this kind takes
			}
			sk, _ := k.build(&f)
			built[sk] = true
			want := fault.OnClient
			if f.Node != nil {
				want = fault.OnNode
			}
			if sk.Target() != want || sk.File() != k.name {
				t.Errorf("%s aimed at node %v builds %s, which targets %d", k.name, f.Node != nil, sk.Name(), sk.Target())
			}
		}
	}
	ttl := locks.Algorithm{Assumes: locks.Assumptions{Expiry: locks.ExpiryTTL}}
	for _, sk := range fault.Kinds() {
		if sk.Planned() && !built[sk] {
			t.Errorf("%s: a plan may hold it, but no file kind builds it", sk.Name())
		}
		outside := outsides[sk]
		if (sk.BreaksTTL() != "") != (outside != nil) {
			t.Errorf("%s: breaks a TTL lock %q, but outsides has an entry %v", sk.Name(), sk.BreaksTTL(), outside != nil)
			continue
		}
		if outside == nil {
			continue
		}
		node := 0
		f := Fault{Kind: sk.File(), Node: &node}
		if _, why := outside(&Scenario{}, ttl, 0, &f); why == "" {
			t.Errorf("%s: breaks a TTL lock, but outsides says it does not for one", sk.Name())
		}
	}
	if _, why := outsides[fault.NodeJump](&Scenario{}, ttl, time.Second, nil); why != fault.NodeJump.BreaksTTL() {
		t.Errorf("a node's clock jump under a TTL lock: %q", why)
	}
}
