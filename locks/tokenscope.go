package locks

import "github.com/locksim/locksim/sim"

// Token scopes: which tries share a token. locksim's token-based locks
// draw a fresh random token on every try, as the reference does;
// bsm/redislock draws one per Obtain and reuses it for every retry, so a
// retry after a lost reply can recognise the key it already set. Params.TokenScope picks one.
const (
	TokenTry     = "try"     // a fresh token per try: the default, today's behaviour
	TokenAcquire = "acquire" // one token per Acquire call, kept by its retries
)

// tokenSource hands out the token of each try of one Acquire call.
type tokenSource struct {
	scope string
	tok   string
}

// next is the token for the next try: drawn now, or the call's kept one.
// The draw is the same one RandomToken makes, so scope try leaves every run's
// random stream, and digest, as it was.
func (s *tokenSource) next(p sim.Proc) string {
	if s.scope == TokenAcquire && s.tok != "" {
		return s.tok
	}
	s.tok = RandomToken(p)
	return s.tok
}

// kept says whether tokens live across tries.
func (s *tokenSource) kept() bool { return s.scope == TokenAcquire }
