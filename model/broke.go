package model

// Which safety an unsafe run broke. The verdict stays unsafe either way (a
// lock that lets two processes hold it is not a mutex), but a fenced
// resource that refused the stale write lost nothing, and the summaries
// (matrix cell, explore, the book) say which, so that what fencing buys is
// visible where locks are compared. These phrases are the one vocabulary:
// text and JSON show them as they are.
const (
	// BrokeLostUpdate: the protected resource lost an update (a direct
	// lost-update witness, or porcupine rejected the counter history).
	BrokeLostUpdate = "lost update"
	// BrokeOverlap: two live processes held the lock at once, and the
	// resource lost nothing (it refused the stale write, or the holders'
	// sections did not interleave).
	BrokeOverlap = "overlap, resource safe"
	// BrokeLock: the lock history is no mutex's (a release by a process that
	// did not hold it, say) without two holders at once, and the resource
	// lost nothing.
	BrokeLock = "lock broken, resource safe"
)

// BrokeKinds are every phrase Broke returns but "", worst first.
var BrokeKinds = []string{BrokeLostUpdate, BrokeOverlap, BrokeLock}

// Broke says which safety an unsafe verdict broke: one of BrokeKinds, or
// "" when the verdict is not unsafe. The resource's side is decided by the
// direct lost-update check, so it needs no porcupine (explore skips it);
// porcupine's "no" for the resource, when it ran, counts too.
func (v Verdict) Broke() string {
	if v.Verdict != VerdictUnsafe {
		return ""
	}
	overlap := false
	for _, x := range v.Violations {
		switch x.Kind {
		case KindLostUpdate:
			return BrokeLostUpdate
		case KindOverlap:
			overlap = true
		}
	}
	switch {
	case v.ResourceLinearizable == No:
		return BrokeLostUpdate
	case overlap:
		return BrokeOverlap
	}
	return BrokeLock
}
