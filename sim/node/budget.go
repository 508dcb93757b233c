package node

import (
	"context"
	"fmt"
	"time"
)

// DefaultScriptBudget is how many Lua VM instructions one script may run when
// Node.ScriptBudget is zero. Real Redis would let a script run for seconds;
// a simulation needs a limit that does not depend on the host's speed.
const DefaultScriptBudget = 1_000_000

// budget is the context gopher-lua's VM consults before every instruction:
// mainLoopWithContext calls Done() once per instruction, so counting the
// calls counts instructions. Past the limit Done() returns a closed channel
// and the VM raises Err(). Nothing here reads a clock.
type budget struct {
	limit int64
	used  int64
}

var closedDone = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func (b *budget) reset(limit int64) {
	b.limit, b.used = limit, 0
}

func (b *budget) exceeded() bool { return b.used > b.limit }

func (b *budget) message() string {
	return fmt.Sprintf("ERR locksim: script exceeded its budget of %d Lua instructions", b.limit)
}

// Done returns nil (a channel that never fires) until the budget is spent.
func (b *budget) Done() <-chan struct{} {
	b.used++
	if b.used > b.limit {
		return closedDone
	}
	return nil
}

func (b *budget) Err() error {
	if b.exceeded() {
		return budgetError{b.message()}
	}
	return nil
}

func (b *budget) Deadline() (time.Time, bool) { return time.Time{}, false }
func (b *budget) Value(any) any               { return nil }

type budgetError struct{ msg string }

func (e budgetError) Error() string { return e.msg }

var _ context.Context = (*budget)(nil)
