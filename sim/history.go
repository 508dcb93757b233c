package sim

import (
	"time"

	"github.com/locksim/locksim/fault"
	"github.com/locksim/locksim/sim/node"
)

// Reply is a Redis reply as the algorithm sees it.
type Reply = node.Reply

// Kind says what an Event records.
type Kind uint8

const (
	// KindCommand: a command ran on a node (At is when it ran; Sent when the
	// client sent it; Key is the watched key afterwards).
	KindCommand Kind = iota + 1
	// KindCommandResult: what the client got back: Reply, or Err on timeout.
	KindCommandResult
	KindLockInvoke    // Acquire called
	KindLockReturn    // Acquire returned: Held, Token, Fence, or Err (a client error)
	KindReleaseInvoke // Release called with the lease (Token, Fence)
	KindReleaseReturn // Release returned; Err if it failed
	KindResourceRead  // the critical section read Value
	KindResourceWrite // the critical section wrote Value with Fence; Accepted
	KindFault         // a fault fired: Fault, Dur (a node restart: also Value, its persistence, and Key, the watched key it kept; a failover: Value, the replica lane promoted, 0 for none, and Key, the watched key as that replica has it)
	KindProcStart     // a process (or a fresh incarnation) started
	KindProcEnd       // a process finished its workload or stopped on a client error
	// The kinds below come after KindProcEnd so that the numbers above, which
	// digests hash, never change.
	KindExtendInvoke // the watchdog called Extend with the lease (Token, Fence)
	KindExtendReturn // Extend returned: Held says renewed; false or Err: the lock is lost
	KindReenter      // a re-entrant Acquire inside the critical section returned: Held, Token, or Err
	KindReexit       // the Release of a re-entrant Acquire returned; Err if it failed
	// KindReplicate: a replica applied one entry of its primary's stream.
	// Node is the replica's lane (History.Nodes + its index in
	// History.Replicas), Req the primary's command that wrote the entry,
	// Args its commands (";" between a script's), Key the watched key on
	// the replica afterwards. Proc is -1.
	KindReplicate
)

var kindNames = [...]string{"", "command", "command-result", "lock-invoke", "lock-return",
	"release-invoke", "release-return", "resource-read", "resource-write", "fault", "proc-start", "proc-end",
	"extend-invoke", "extend-return", "reenter", "reexit", "replicate"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// KeyState is a watched key on a node right after an event there (node's
// keystate.go says what each field means, Fresh above all).
type KeyState = node.KeyState

// KeyType is a watched key's Redis type.
type KeyType = node.KeyType

// Event is one thing that happened on the true timeline. Fields that do not
// apply to a Kind are zero; Proc and Node are -1 when they do not apply.
//
// The one-byte fields sit together after Kind: spread out, each took a word
// of padding, and a run writes hundreds of events (224 bytes, not 240).
type Event struct {
	At   Time
	Kind Kind
	Held bool
	// Silent marks a failed KindExtendReturn its holder was not told of
	// (SilentRenewal): the watchdog ended, the hold goes on.
	Silent      bool
	Accepted    bool
	Fault       fault.Kind
	Proc        int
	Node        int
	Incarnation int    // the process's life: 0, then +1 after each restart
	Req         uint64 // command request id (KindCommand, KindCommandResult)
	Args        []string
	Reply       Reply
	Err         string
	Sent        Time // KindCommand, KindCommandResult: when the client sent the request
	Token       string
	Fence       int64
	Value       int64
	Dur         time.Duration
	Key         KeyState
}

// History is every event of a run in true-time order (ties in the order they
// happened).
type History struct {
	Events []Event
	Procs  []string // process names by index
	Nodes  int
	// WatchKey is the key whose state KindCommand events carry.
	WatchKey string
	// Replicas names, for each replica lane (numbered from Nodes on), the
	// node it replicates; empty without replication.
	Replicas []int
}
