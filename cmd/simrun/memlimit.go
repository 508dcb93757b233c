package main

import (
	"os"
	"runtime/debug"
)

// softMemoryLimit asks the garbage collector to work harder as the heap
// nears it, instead of letting the heap grow to twice what is live (Go's
// default pacing): a run at the event cap keeps about 450 MB live at its peak
// (the history while it is joined), and without the limit its resident size
// came within a few percent of 1 GB. It is soft: it changes when memory is
// collected, never what a run computes. GOMEMLIMIT in the environment wins.
const softMemoryLimit = 640 << 20

func init() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
}

// searchCommands are the commands that run the collector as searches want
// it (internal/gctune): GOGC=400 while the live heap is small, the soft
// limit lowered meanwhile, Go's default and softMemoryLimit otherwise.
var searchCommands = map[string]bool{"explore": true, "matrix": true, "book": true, "prove": true}
