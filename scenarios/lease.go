package scenarios

import "time"

// Limits of the lease options (watchdog period, re-entry depth). A
// watchdog faster than 1 ms only fills the history; more than MaxReenter
// nested acquisitions show nothing two do not.
const (
	MinRenewEvery = time.Millisecond
	MaxReenter    = 100
)

func (c Client) validateLease(field string) error {
	if c.RenewEvery != 0 && c.RenewEvery.D() < MinRenewEvery {
		return fieldError(field+".renew_every", "must be 0 (no watchdog) or at least %s", MinRenewEvery)
	}
	if c.Reenter < 0 || c.Reenter > MaxReenter {
		return fieldError(field+".reenter", "must be within 0..%d", MaxReenter)
	}
	return nil
}
