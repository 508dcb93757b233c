package model

import (
	"cmp"
	"math"
	"slices"

	"github.com/anishathalye/porcupine"
)

// Check's porcupine questions, cut in time. Porcupine remembers each
// linearized prefix as a bitset over all of a partition's operations and
// copies it at every step, so one partition of n operations costs n²/64
// words: three quarters of checking 10,000 lock operations went there. A
// history can be cut where every operation before the cut returned before
// any after it was called (porcupine orders calls before returns at equal
// times, so the cut needs a strict gap), provided the model's state at the
// cut is the same in every order the operations before it may take. Then
// each order of the whole is an order of each piece, one after the other,
// and the pieces' orders put together are an order of the whole: the whole
// is linearizable exactly when every piece is from that state, and
// porcupine checks the pieces as partitions (all must pass). The answer is
// porcupine's, Ok or Illegal, unchanged; the visualization (visualize.go)
// still gives porcupine the whole history.
//
// The mutex: a legal order alternates acquire and release from free, so
// after as many acquires as releases the lock is free whatever the order.
// A lock history rarely has a quiescent instant: the next holder is
// usually already waiting in Acquire when the holder releases. So the lock
// is also cut after a release R that the next operations overlap (see
// mutexPieces): the piece before is P0, every operation of which returned
// before any later one was called, plus R; P0 has one acquire more than
// releases, so after it the lock is held in every order. Every operation
// after the cut that was called before R returned is an acquire, and none
// returned before R was called. In any legal order the first operation after
// the cut cannot come before R: everything before it would be P0, the lock
// held, and it is either an acquire (refused) or called after R returned
// (so R comes first). So every legal order puts the piece first, and the
// pieces' orders joined keep real time (nothing after the cut returned
// before anything in the piece was called).
//
// The counter: when every accepted write wrote its read plus one, each legal
// order adds one per accepted write, so the value at a cut is the initial
// value plus the accepted writes before it; a piece's values are shifted
// down by that count (wrapping, which keeps every equality the model
// tests) so that it starts, as every partition does, from the initial
// value. The highest fence, the other half of the counter's state, decides
// no step: a piece starts it at 0. A history where some write did not add
// one, or some operation returned before its call, is checked whole.

// minPiece is the fewest operations a piece holds (the last may hold
// fewer): each partition costs porcupine a goroutine and its own tables,
// and the copying that cutting saves is small below this.
const minPiece = 64

// mutexCheck is Check's porcupine question for the lock: the mutex model
// without what only the visualization reads (descriptions, metadata), its
// inputs boxed as pointers into one array, cut into pieces of at least
// minOps operations.
func mutexCheck(t *trace, minOps int) (porcupine.Model, []porcupine.Operation) {
	ins := make([]lockInput, len(t.lockOps))
	ops := make([]porcupine.Operation, len(t.lockOps))
	for i := range t.lockOps {
		o := &t.lockOps[i]
		ins[i] = lockInput{proc: o.proc, acquire: o.acquire}
		ops[i] = porcupine.Operation{ClientId: o.proc, Input: &ins[i], Call: int64(o.call), Return: int64(o.ret)}
	}
	m := porcupine.Model{
		Init: func() any { return free },
		Step: func(state, input, _ any) (bool, any) {
			return lockStep(state.(int), input.(*lockInput))
		},
		Hash: func(state any) uint64 { return uint64(state.(int) + 1) },
		Partition: func(ops []porcupine.Operation) [][]porcupine.Operation {
			pieces, _ := mutexPieces(ops, minOps)
			return pieces
		},
	}
	return m, ops
}

// resourceCheck is Check's porcupine question for the counter, as
// mutexCheck is for the lock.
func resourceCheck(t *trace, minOps int) (porcupine.Model, []porcupine.Operation) {
	ins := make([]resInput, len(t.sections))
	ops := make([]porcupine.Operation, len(t.sections))
	byOne := true // every accepted write wrote its read plus one
	for i, s := range t.sections {
		ins[i] = resInput{s.read, s.wrote, s.fence, s.accepted}
		ops[i] = porcupine.Operation{ClientId: s.proc, Input: &ins[i], Call: int64(s.readAt), Return: int64(s.writeAt)}
		byOne = byOne && (!s.accepted || s.wrote == s.read+1)
	}
	base := resourceModel(t)
	m := porcupine.Model{
		Init: base.Init,
		Step: func(state, input, _ any) (bool, any) {
			return resStep(state.(resState), input.(*resInput))
		},
		Hash: base.Hash,
		Partition: func(ops []porcupine.Operation) [][]porcupine.Operation {
			if !byOne {
				return [][]porcupine.Operation{ops}
			}
			return resourcePieces(ops, minOps)
		},
	}
	return m, ops
}

// mutexPieces orders ops (mutex operations, inputs *lockInput) by call,
// ties in their given order, and cuts them into pieces of at least minOps
// operations (the last may hold fewer) by the two rules above: a quiescent
// instant after as many acquires as releases, or a release the next
// operations overlap. It sorts ops itself. moved counts the cuts of the
// second kind. With an operation that returns before its call, ops stay
// whole.
func mutexPieces(ops []porcupine.Operation, minOps int) (pieces [][]porcupine.Operation, moved int) {
	for i := range ops {
		if ops[i].Return < ops[i].Call {
			return [][]porcupine.Operation{ops}, 0
		}
	}
	slices.SortStableFunc(ops, func(a, b porcupine.Operation) int { return cmp.Compare(a.Call, b.Call) })
	acquire := func(op *porcupine.Operation) bool { return op.Input.(*lockInput).acquire }
	rest := ops
	for k, balance, lastRet := 0, 0, int64(math.MinInt64); k < len(rest); k++ {
		// rest[:k] returned before rest[k] was called, with balance more
		// acquires than releases: cut before k, or move a release in.
		if k >= max(minOps-1, 1) && lastRet < rest[k].Call {
			if balance == 0 && k >= minOps {
				pieces = append(pieces, rest[:k:k])
				rest, k, lastRet = rest[k:], -1, math.MinInt64
				continue
			} else if balance == 1 {
				if j := releaseCut(rest, k, acquire); j >= 0 {
					// The piece is rest[:k] and the release at j: rotate
					// it to k.
					r := rest[j]
					copy(rest[k+1:j+1], rest[k:j])
					rest[k] = r
					pieces = append(pieces, rest[:k+1:k+1])
					rest, k, balance, lastRet, moved = rest[k+1:], -1, 0, math.MinInt64, moved+1
					continue
				}
			}
		}
		if acquire(&rest[k]) {
			balance++
		} else {
			balance--
		}
		lastRet = max(lastRet, rest[k].Return)
	}
	if len(rest) > 0 || len(pieces) == 0 {
		pieces = append(pieces, rest)
	}
	return pieces, moved
}

// releaseWindow bounds how far past a quiescent instant releaseCut looks.
const releaseWindow = 16

// releaseCut is the index of a release R in ops[k:] after only acquires
// (ops in call order) such that every other operation from k on called
// before R returned is an acquire and none returned before R was called;
// -1 when there is none within releaseWindow operations.
func releaseCut(ops []porcupine.Operation, k int, acquire func(*porcupine.Operation) bool) int {
	j := k
	for j < len(ops) && j-k < releaseWindow && acquire(&ops[j]) {
		j++
	}
	if j == len(ops) || j-k == releaseWindow {
		return -1
	}
	r := &ops[j]
	for i := k; i < j; i++ {
		if ops[i].Return < r.Call {
			return -1
		}
	}
	for i := j + 1; i < len(ops) && ops[i].Call <= r.Return; i++ {
		if i-j > releaseWindow || !acquire(&ops[i]) {
			return -1
		}
	}
	return j
}

// resourcePieces orders ops (counter operations, inputs *resInput, each
// accepted write its read plus one) by call, ties in their given order (it
// sorts ops itself), and cuts them, each piece at least minOps long, where
// every operation before returned strictly before the next one's call; each
// piece's values are shifted down by the writes accepted before it. With an
// operation that returns before its call, ops stay whole.
func resourcePieces(ops []porcupine.Operation, minOps int) [][]porcupine.Operation {
	for i := range ops {
		if ops[i].Return < ops[i].Call {
			return [][]porcupine.Operation{ops}
		}
	}
	slices.SortStableFunc(ops, func(a, b porcupine.Operation) int { return cmp.Compare(a.Call, b.Call) })
	var pieces [][]porcupine.Operation
	start := 0
	var accepted, before int64      // writes accepted before i, before start
	lastRet := int64(math.MinInt64) // the latest return of all operations before i
	for i := range ops {
		if i-start >= max(minOps, 1) && lastRet < ops[i].Call {
			pieces = append(pieces, shiftDown(ops[start:i], before))
			start, before = i, accepted
		}
		lastRet = max(lastRet, ops[i].Return)
		if ops[i].Input.(*resInput).accepted {
			accepted++
		}
	}
	return append(pieces, shiftDown(ops[start:], before))
}

// shiftDown gives piece's operations inputs whose values read and written
// are n less (new inputs: the ones given are left as they are).
func shiftDown(piece []porcupine.Operation, n int64) []porcupine.Operation {
	if n == 0 {
		return piece
	}
	shifted := make([]resInput, len(piece))
	for i := range piece {
		in := *piece[i].Input.(*resInput)
		in.read, in.wrote = in.read-n, in.wrote-n
		shifted[i] = in
		piece[i].Input = &shifted[i]
	}
	return piece
}
