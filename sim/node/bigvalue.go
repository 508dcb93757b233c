package node

import "strconv"

// MaxValueBytes bounds the string one command may grow a key to by an
// offset: SETRANGE and SETBIT make a value as long as the offset they are
// given, zero-filled (miniredis has no BITFIELD), so one short command
// (SETRANGE k 536870911 x, which Redis allows) would make half a gigabyte on
// every node it reaches.
// What other commands store is bounded by their arguments, which the history
// counts (sim.MaxHistoryBytes), or a script's memory budget.
const MaxValueBytes = ScriptMemory

// offsetRefusal is the error for a command whose offset would make a value
// over MaxValueBytes, or "". name is upper case. Offsets that do not parse
// are left to the command, which answers as Redis does.
func offsetRefusal(name string, args []string) string {
	over := false
	switch name {
	case "SETRANGE":
		if len(args) == 4 {
			off, err := strconv.ParseInt(args[2], 10, 64)
			over = err == nil && off+int64(len(args[3])) > MaxValueBytes
		}
	case "SETBIT":
		if len(args) == 4 {
			off, err := strconv.ParseInt(args[2], 10, 64)
			over = err == nil && off/8 >= MaxValueBytes
		}
	}
	if !over {
		return ""
	}
	return "ERR locksim: " + name + " past " + strconv.Itoa(MaxValueBytes>>20) + " MiB is not simulated"
}
