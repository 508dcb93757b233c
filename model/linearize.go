package model

import (
	"time"

	"github.com/anishathalye/porcupine"
)

// linearizable asks porcupine, within timeout. Unknown means it ran out of
// time, or the history is over MaxPorcupineOps: not a yes.
func linearizable(m porcupine.Model, ops []porcupine.Operation, timeout time.Duration) Tri {
	if len(ops) > MaxPorcupineOps {
		return Unknown
	}
	switch porcupine.CheckOperationsTimeout(m, ops, timeout) {
	case porcupine.Ok:
		return Yes
	case porcupine.Illegal:
		return No
	}
	return Unknown
}
