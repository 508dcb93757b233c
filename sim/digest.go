package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"

	"github.com/locksim/locksim/fault"
)

// Digest is a sha256 over a canonical encoding of the history: every field of
// every event, integers as fixed 8 bytes, strings length-prefixed. Same
// scenario and seed give the same digest on any machine.
func (h *History) Digest() string {
	d := digester{h: sha256.New(), buf: make([]byte, 0, digestBuffer+8)} // +8: the integer that crosses it
	d.int(int64(len(h.Procs)))
	for _, p := range h.Procs {
		d.str(p)
	}
	d.int(int64(h.Nodes))
	d.str(h.WatchKey)
	if len(h.Replicas) > 0 { // hashed only when there are some: older digests stand
		d.int(int64(len(h.Replicas)))
		for _, n := range h.Replicas {
			d.int(int64(n))
		}
	}
	d.int(int64(len(h.Events)))
	d.lanes = make([]KeyState, h.Nodes+len(h.Replicas))
	for i := range h.Events {
		d.event(&h.Events[i])
	}
	d.flush()
	return hex.EncodeToString(d.h.Sum(nil))
}

// digester appends the encoding to buf and hands the hash about 4 KB at a
// time: a Write per 8-byte integer (a run's events hold some 25 fields
// each) was about 40 % of a digest's cost; a bufio.Writer in front of the
// hash, a Write each still, took 1.35 times as long as this
// (BenchmarkDigest). The bytes hashed are the same.
type digester struct {
	h   hash.Hash
	buf []byte
	// lanes is the watched key as the last event carrying it left each
	// lane: what a KeyState's Fresh is implied from.
	lanes []KeyState
}

// digestBuffer is how many bytes the digester gathers, at least, before
// it hashes them.
const digestBuffer = 4096

func (d *digester) int(v int64) {
	d.buf = binary.LittleEndian.AppendUint64(d.buf, uint64(v))
	d.spill()
}

func (d *digester) str(s string) {
	d.buf = binary.LittleEndian.AppendUint64(d.buf, uint64(len(s)))
	d.buf = append(d.buf, s...)
	d.spill()
}

// spill hashes buf once it holds digestBuffer bytes or more.
func (d *digester) spill() {
	if len(d.buf) >= digestBuffer {
		d.flush()
	}
}

// flush hashes what buf holds.
func (d *digester) flush() {
	d.h.Write(d.buf)
	d.buf = d.buf[:0]
}

func (d *digester) bool(b bool) {
	if b {
		d.int(1)
	} else {
		d.int(0)
	}
}

func (d *digester) event(e *Event) {
	d.int(int64(e.At))
	d.int(int64(e.Kind))
	d.int(int64(e.Proc))
	d.int(int64(e.Node))
	d.int(int64(e.Incarnation))
	d.int(int64(e.Req))
	d.int(int64(len(e.Args)))
	for _, a := range e.Args {
		d.str(a)
	}
	d.reply(&e.Reply)
	d.str(e.Err)
	d.int(int64(e.Sent))
	// Held and Silent in one number: as Held alone while Silent is false,
	// so every digest from before Silent stands.
	held := int64(0)
	if e.Held {
		held = 1
	}
	if e.Silent {
		held |= 2
	}
	d.int(held)
	d.str(e.Token)
	d.int(e.Fence)
	d.int(e.Value)
	d.bool(e.Accepted)
	d.int(int64(e.Fault))
	d.int(int64(e.Dur))
	d.int(d.keyCode(e))
	d.str(e.Key.Value)
	d.int(int64(e.Key.TTL))
}

func (d *digester) reply(r *Reply) {
	d.int(int64(r.Kind))
	d.str(r.Str)
	d.int(r.Int)
	d.int(int64(len(r.Elems)))
	for i := range r.Elems {
		d.reply(&r.Elems[i])
	}
}

// keyCode encodes a KeyState's Exists, Type and Fresh in one number, so
// that a string key's state hashes as it did before types and versions were
// recorded: 0 for an absent key, 1 for a string (Exists, as it was), 1+Type
// for another type; plus freshFlag when Fresh is not what a change of the
// key since the last event on its lane implies (a new version whose content
// is the same: written again after it expired, or by another process). The
// rest is implied, and left out.
func (d *digester) keyCode(e *Event) int64 {
	k := &e.Key
	var code int64
	if k.Exists {
		code = 1 + int64(k.Type)
	}
	implied := false
	if lane, ok := keyLane(e); ok && lane < len(d.lanes) {
		prev := &d.lanes[lane]
		implied = k.Exists && (!prev.Exists || prev.Type != k.Type || prev.Value != k.Value)
		*prev = *k
	}
	if k.Fresh != implied {
		code |= freshFlag
	}
	return code
}

const freshFlag = 1 << 8

// keyLane is the lane whose watched key event e records, if it records one:
// a command's node, a replica's lane, a restarted node (whatever it kept,
// nothing included), a node whose failover promoted a replica.
func keyLane(e *Event) (int, bool) {
	switch {
	case e.Node < 0:
		return 0, false
	case e.Kind == KindCommand, e.Kind == KindReplicate:
		return e.Node, true
	case e.Kind != KindFault:
		return 0, false
	case e.Fault == fault.NodeRestart, e.Fault == fault.Failover && e.Value != 0:
		return e.Node, true
	}
	return 0, false
}
