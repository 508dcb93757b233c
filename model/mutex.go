package model

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// The lock as porcupine sees it: a Knossos-style mutex whose state is the
// holder's process index, or free. Only successful acquires are operations
// (a failed one had no effect); a crash or stop while holding is a release
// at that instant.

const free = -1

type lockInput struct {
	proc    int
	acquire bool
	fence   int64
	note    string
}

// lockStep is the mutex model's step from holder (a process, or free),
// shared by mutexModel and Check's pieces (partition.go): an acquire takes
// a free lock, a release frees its holder's.
func lockStep(holder int, in *lockInput) (bool, any) {
	if in.acquire {
		return holder == free, in.proc
	}
	return holder == in.proc, free
}

func mutexModel(t *trace) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return free },
		Step: func(state, input, _ any) (bool, any) {
			in := input.(lockInput)
			return lockStep(state.(int), &in)
		},
		Hash: func(state any) uint64 { return uint64(state.(int) + 1) },
		DescribeOperation: func(input, _ any) string {
			in := input.(lockInput)
			switch {
			case in.acquire && in.fence != 0:
				return fmt.Sprintf("%s acquire (fence %d)", t.name(in.proc), in.fence)
			case in.acquire:
				return t.name(in.proc) + " acquire"
			case in.note != "":
				return fmt.Sprintf("%s %s holding", t.name(in.proc), in.note)
			}
			return t.name(in.proc) + " release"
		},
		DescribeState: func(state any) string {
			if h := state.(int); h != free {
				return "held by " + t.name(h)
			}
			return "free"
		},
		DescribeOperationMetadata: func(m any) string {
			s, _ := m.(string)
			return s
		},
	}
}

func mutexOps(t *trace) []porcupine.Operation {
	ops := make([]porcupine.Operation, len(t.lockOps))
	for i, o := range t.lockOps {
		meta := fmt.Sprintf("call %s, return %s", o.call, o.ret)
		if err := t.errText(&t.lockOps[i]); err != "" {
			meta += ", error: " + err
		}
		ops[i] = porcupine.Operation{
			ClientId: o.proc,
			Input:    lockInput{o.proc, o.acquire, o.fence, o.noteText()},
			Call:     int64(o.call),
			Return:   int64(o.ret),
			Metadata: meta,
		}
	}
	return ops
}
