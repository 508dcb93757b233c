package model

import "github.com/locksim/locksim/sim"

// Renewals: a holder's watchdog extends its lease while it works.
//
// When does a hold end if an extend fails? Two readings are possible: at the
// first failed extend's return, the moment the holder learns it has lost
// the lock; or at the last moment the holder could still believe it held
// the lock, one TTL after the last renewal that succeeded (or after the
// acquisition, if none did). locksim takes the first: a hold ends at the
// return of its first failed extend (endLost), as a Release call ends it.
// Until then nothing told the holder to stop: its belief, which is what the
// mutex judges, lasted that long, and the holder's clock cannot be trusted
// to have timed the TTL (clocks jump and drift here). The second reading
// would call safe a run where a paused holder and the next one both believed
// they held the lock (corpus 53 and 54 show where the two differ).
//
// For liveness, a successful extend renews the lease: the lock may
// legitimately stay taken for one TTL from the extend's return. An extend
// whose answer never came (a timeout, an error, or the watchdog stopped or
// killed while it waited) may have renewed it too: one TTL from its invoke,
// as a write whose writer cannot know the outcome. An extend answered "no"
// renews nothing. A hold that ended lost is abandoned like a crashed one: its
// key, if the failure was only a lost reply, lives out one TTL.

// A renewal failure the holder is not told of (python-redis-lock's renewal
// thread dies silently) is recorded Silent and ends no hold: the holder's
// belief lasts until its release, so a second holder after the lease
// expired is an overlap, the library's own bug.

// renewal is one extend call.
type renewal struct {
	proc    int
	at, ret sim.Time // invoke; return (ret < at: none)
	ok      bool     // returned renewed
	err     bool     // returned with an error
}

func (t *trace) extend(s *procState, p, i int, e *sim.Event) {
	if e.Kind == sim.KindExtendInvoke {
		s.extending = len(t.renewals)
		t.renewals = append(t.renewals, renewal{proc: p, at: e.At, ret: -1})
		return
	}
	if s.extending >= 0 {
		r := &t.renewals[s.extending]
		r.ret, r.ok, r.err = e.At, e.Held && e.Err == "", e.Err != ""
		s.extending = -1
	}
	// A failure the holder was not told of (sim.SilentRenewal) ends
	// nothing: it still believes it holds the lock, and works on.
	if (e.Held && e.Err == "") || s.holding < 0 || e.Silent {
		return
	}
	// The first failed extend ends the hold, as a crash does.
	t.endHold(s, p, i, e.At, endLost)
}

// renewalLeases is the time each extend may have kept the lock taken.
func renewalLeases(t *trace, life sim.Time) []span {
	var out []span
	for _, r := range t.renewals {
		switch {
		case r.ok:
			out = append(out, span{r.at, r.ret + life})
		case r.err || r.ret < r.at:
			out = append(out, span{r.at, r.at + life})
		}
	}
	return out
}
