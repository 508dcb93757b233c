package sim

import "time"

// Epoch is true time zero: every run starts here, so times in histories look
// like real Unix timestamps and are the same on every machine.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Time is true time: nanoseconds since Epoch on the simulation's timeline.
type Time int64

// Std converts true time to a time.Time.
func (t Time) Std() time.Time { return Epoch.Add(time.Duration(t)) }

// String formats true time as RFC 3339 with nanoseconds.
func (t Time) String() string { return t.Std().Format(time.RFC3339Nano) }

// ClockSpec describes a local clock: local = true + Offset + drift·true + jumps.
type ClockSpec struct {
	Offset   time.Duration
	DriftPPM int64 // parts per million; +100 gains 100 µs per true second
}

// clock is a running local clock. Integer arithmetic only: floating point may
// be fused differently on other CPUs, and the digest must not change.
type clock struct {
	spec   ClockSpec
	jumped time.Duration
}

func (c *clock) at(t Time) Time {
	drift := (int64(t)/1_000_000)*c.spec.DriftPPM + (int64(t)%1_000_000)*c.spec.DriftPPM/1_000_000
	return t + Time(c.spec.Offset) + Time(drift) + Time(c.jumped)
}
