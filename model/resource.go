package model

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// The protected counter as porcupine sees it. One operation per critical
// section, spanning [read, write]: it read a value, then wrote read+1, which
// the resource accepted or refused (fencing). A refused write changed nothing,
// so it is a read. A section that read but never wrote (crash, stop, end of
// run) is left out: it changed nothing, so it cannot lose anyone's update,
// and its read came from the resource itself, so it cannot be wrong.

type resState struct{ value, fence int64 }

type resInput struct {
	read, wrote, fence int64
	accepted           bool
}

// resStep is the counter model's step, shared by resourceModel and Check's
// pieces (partition.go): a section must read the value; an accepted write
// sets it and raises the highest fence seen.
func resStep(s resState, in *resInput) (bool, any) {
	if in.read != s.value {
		return false, s
	}
	if !in.accepted {
		return true, s
	}
	return true, resState{in.wrote, max(s.fence, in.fence)}
}

func resourceModel(t *trace) porcupine.Model {
	// The counter starts where the first read found it: the engine does not
	// record the initial value, and nothing wrote before the first read.
	var init resState
	if len(t.sections) > 0 {
		first := t.sections[0]
		for _, s := range t.sections[1:] {
			if s.readIdx < first.readIdx {
				first = s
			}
		}
		init.value = first.read
	}
	return porcupine.Model{
		Init: func() any { return init },
		Step: func(state, input, _ any) (bool, any) {
			in := input.(resInput)
			return resStep(state.(resState), &in)
		},
		Hash: func(state any) uint64 {
			s := state.(resState)
			return uint64(s.value)*1_000_003 ^ uint64(s.fence)
		},
		DescribeOperation: func(input, _ any) string {
			in := input.(resInput)
			verb := "wrote"
			if !in.accepted {
				verb = "refused"
			}
			if in.fence != 0 {
				return fmt.Sprintf("read %d, %s %d (fence %d)", in.read, verb, in.wrote, in.fence)
			}
			return fmt.Sprintf("read %d, %s %d", in.read, verb, in.wrote)
		},
		DescribeState: func(state any) string {
			s := state.(resState)
			return fmt.Sprintf("value %d, highest fence %d", s.value, s.fence)
		},
	}
}

func resourceOps(t *trace) []porcupine.Operation {
	ops := make([]porcupine.Operation, len(t.sections))
	for i, s := range t.sections {
		ops[i] = porcupine.Operation{
			ClientId: s.proc,
			Input:    resInput{s.read, s.wrote, s.fence, s.accepted},
			Call:     int64(s.readAt),
			Return:   int64(s.writeAt),
		}
	}
	return ops
}
