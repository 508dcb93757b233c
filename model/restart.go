package model

import (
	"fmt"

	"github.com/locksim/locksim/sim"
)

// RestartLoss says what a node restart event kept: "data lost" without
// persistence (as always), else the mode and whether the watched key
// survived the reload.
func RestartLoss(e sim.Event) string {
	mode := e.RestartPersistence()
	if mode == sim.PersistNone {
		return "data lost"
	}
	kept := "no key"
	if e.Key.Exists {
		kept = "key kept"
	}
	return fmt.Sprintf("%s reload, %s", mode, kept)
}
