package scenarios

import "time"

// Limits of a client's renewal and re-entry options. A watchdog renewing
// faster than 1 ms only fills the history; more than MaxReenter nested
// acquisitions show nothing two do not.
const (
	MinRenewEvery = time.Millisecond
	MaxReenter    = 100
)

// validateRenewal checks the client's watchdog period (renew_every).
func (c Client) validateRenewal(field string) error {
	if c.RenewEvery != 0 && c.RenewEvery.D() < MinRenewEvery {
		return fieldError(field+".renew_every", "must be 0 (no watchdog) or at least %s", MinRenewEvery)
	}
	return nil
}

// validateReentry checks how deep the client re-enters a lock it holds
// (reenter).
func (c Client) validateReentry(field string) error {
	if c.Reenter < 0 || c.Reenter > MaxReenter {
		return fieldError(field+".reenter", "must be within 0..%d", MaxReenter)
	}
	return nil
}
