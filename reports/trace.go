package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// traceRow is one command from send to outcome: its KindCommand event (when
// it ran on the node) and its KindCommandResult (what the client got), paired
// by request id.
type traceRow struct {
	req        uint64
	proc, node string
	sent, ran  sim.Time
	hasRan     bool
	hasSent    bool // known without hasRan: from the result
	args       []string
	reply      string
	key        string // the watched key right after it ran
	done       sim.Time
	hasDone    bool
	outcome    string // "ok", "timeout: …", or why there is no result
}

func commandTrace(h *sim.History) []traceRow {
	byReq := map[uint64]int{} // looked up only; rows keep history order
	var rows []traceRow
	row := func(e *sim.Event) *traceRow {
		i, ok := byReq[e.Req]
		if !ok {
			i = len(rows)
			byReq[e.Req] = i
			rows = append(rows, traceRow{req: e.Req, proc: procName(h, e.Proc), node: nodeName(e.Node)})
		}
		return &rows[i]
	}
	for i := range h.Events {
		e := &h.Events[i]
		switch e.Kind {
		case sim.KindCommand:
			r := row(e)
			r.sent, r.ran, r.hasRan, r.args, r.reply = e.Sent, e.At, true, e.Args, shortTokens(e.Reply.String())
			r.key = "(absent)"
			if e.Key.Exists {
				r.key = keyContent(e.Key, 42)
				if e.Key.TTL > 0 {
					r.key += " TTL " + e.Key.TTL.String()
				}
			}
		case sim.KindCommandResult:
			r := row(e)
			r.done, r.hasDone = e.At, true
			if !r.hasRan && e.Args != nil {
				// A request lost, or dropped by a down node, never ran: the
				// result alone repeats what was sent, and when.
				r.args, r.sent, r.hasSent = e.Args, e.Sent, true
			}
			r.outcome = "ok"
			if e.Err != "" {
				r.outcome = e.Err
				if r.hasRan {
					r.outcome += " (it ran)"
				}
			}
		}
	}
	for i := range rows {
		r := &rows[i]
		switch {
		case !r.hasRan && r.hasDone:
			// The engine records a command only where it ran: a request lost
			// or dropped by a down node leaves just the timeout.
			r.outcome += " (never ran)"
		case !r.hasDone:
			r.outcome = "no result: its process crashed or the run ended"
		}
	}
	slices.SortStableFunc(rows, func(a, b traceRow) int { return cmp.Compare(a.req, b.req) })
	return rows
}

func (r traceRow) command(w *eventWriter) string {
	if r.args == nil {
		return "(not recorded)"
	}
	return w.args(r.args)
}

// witnessReqs is the request ids of the commands a verdict cites.
func witnessReqs(vs []model.Violation) map[uint64]bool {
	out := map[uint64]bool{}
	for _, v := range vs {
		for _, e := range v.Witness {
			if e.Kind == sim.KindCommand {
				out[e.Req] = true
			}
		}
	}
	return out
}

// roundWords says what times are rounded to: ", rounded to 1ms", or "".
func roundWords(r time.Duration) string {
	if r <= 1 {
		return ""
	}
	return ", rounded to " + r.String()
}

// writeTrace writes one row per command; with a width, a row longer than it
// wraps under its command.
func writeTrace(b *strings.Builder, w *eventWriter, rows []traceRow, witness map[uint64]bool, width int) {
	fmt.Fprintf(b, "%-11s%d commands; times are true time since the start%s; * a witness's command\n", "trace", len(rows), roundWords(w.round))
	fmt.Fprintf(b, "%5s %-5s %-6s %-12s %-12s %-12s %s\n", "req", "proc", "node", "sent", "ran", "result at", "command → reply · key after · result")
	for _, r := range rows {
		sent, ran, done := "?", "-", "-"
		if r.hasRan || r.hasSent {
			sent = w.at(r.sent)
		}
		if r.hasRan {
			ran = w.at(r.ran)
		}
		if r.hasDone {
			done = w.at(r.done)
		}
		line := r.command(w)
		if r.hasRan {
			line += " → " + r.reply + " · " + r.key
		}
		star := " "
		if witness[r.req] {
			star = "*"
		}
		head := fmt.Sprintf("%s%4d %-5s %-6s %-12s %-12s %-12s ", star, r.req, r.proc, r.node, sent, ran, done)
		text := line + " · " + r.outcome
		if width <= 0 {
			b.WriteString(head + text + "\n")
			continue
		}
		para(b, head, indent(len(head)), text, max(width, len(head)+20))
	}
}

// writeResourceWrites lists the protected resource's writes, so a refused
// (stale-fence) write shows beside the commands.
func writeResourceWrites(b *strings.Builder, w *eventWriter, width int) {
	h := w.h
	var lines []string
	for _, e := range h.Events {
		if e.Kind == sim.KindResourceWrite {
			lines = append(lines, w.event(e))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "%-11s%d writes to the protected resource\n", "writes", len(lines))
	if width <= 0 {
		width = 1 << 30
	}
	for _, l := range lines {
		para(b, indent(11), indent(11+18), l, width)
	}
}
