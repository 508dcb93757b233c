package model

// MaxPorcupineOps bounds the operations one porcupine check is given. Past
// it the answer is Unknown (not checked), decided by counting, so the same on
// every machine. Why a bound at all: porcupine remembers every linearized
// prefix it has seen as a bitset over all of a partition's operations, so
// its memory grows with the square of a history checked whole (200,000 lock
// operations, the size of a run at the 1,000,000-event cap, took 5 GB before
// its timeout fired). At 20,000 operations that cache stays under about 50
// MB per check and the check takes well under a second; the direct checkers,
// linear in the history, still judge every run whole. Check now gives
// porcupine pieces where a history can be cut (partition.go), but the
// visualization and a history with no place to cut are checked whole, and
// the bound counts the whole history either way, so the same runs say
// Unknown.
const MaxPorcupineOps = 20_000
