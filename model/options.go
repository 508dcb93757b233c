package model

import "time"

// Options tune the checkers. The zero value is usable.
type Options struct {
	// TTL is the lock's lifetime; 0 means the lock never expires. The stuck
	// check scales with it.
	TTL time.Duration
	// StaleBound is how long, in true time, a released lock's key may stay
	// while others wait before it is called stale. Default 1s.
	StaleBound time.Duration
	// Timeout bounds each porcupine check; when it runs out the answer is
	// Unknown. Default 10s.
	Timeout time.Duration
	// SkipPorcupine leaves the linearizability fields Unknown and judges
	// safety by the direct checkers alone (the fast path for search).
	SkipPorcupine bool
	_             struct{} // grows: callers name the fields they set
}

// Defaults used when the fields are zero.
const (
	DefaultStaleBound = time.Second
	DefaultTimeout    = 10 * time.Second
)

func (o Options) withDefaults() Options {
	if o.StaleBound <= 0 {
		o.StaleBound = DefaultStaleBound
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.TTL < 0 {
		o.TTL = 0
	}
	return o
}
