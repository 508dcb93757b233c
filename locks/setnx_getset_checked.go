package locks

import (
	"strconv"

	"github.com/locksim/locksim/sim"
)

// Source: redis-setnx-page, "Handling deadlocks", IMPORTANT NOTE
//
// C4's algorithm (setnx-getset) with the note applied: "a client holding a
// lock should always check the timeout didn't expired before to unlock the
// key with DEL". The check reads the local clock and the DEL follows it as a
// separate step: a pause between the two still deletes another client's
// lock.
var setnxGetsetCheckedAlgorithm = register(Algorithm{
	Name:     "setnx-getset-checked",
	Source:   "redis-setnx-page",
	Summary:  "C4's SETNX/GETSET lock whose release first checks its own timestamp has not expired, then DELs (not atomic)",
	Defaults: setnxGetsetAlgorithm.Defaults,
	Assumes:  Assumptions{Expiry: ExpiryTimestamp},
	lifetime: getsetLifetime,
}, func(name string, p Params) sim.Locker {
	return &setnxGetsetChecked{setnxGetset{name: name, p: p}}
})

type setnxGetsetChecked struct{ setnxGetset }

func (l *setnxGetsetChecked) Release(p sim.Proc, lease sim.Lease) error {
	// The lease token is the timestamp this client wrote. "If such a
	// timestamp is <= the current Unix time the lock is no longer valid":
	// only a still valid lock is ours to DEL.
	until, err := strconv.ParseInt(lease.Token, 10, 64)
	if err != nil {
		return clientErr(l.name, "check timeout before DEL", "lease token %q is not a timestamp", lease.Token)
	}
	if until <= Stamp(p.Now(), l.p.Resolution) {
		return nil // expired: another client may hold it now
	}
	_, err = call(p, l.name, "DEL "+l.p.Key, 0, "DEL", l.p.Key)
	return err
}
