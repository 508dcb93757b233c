package model

import (
	"fmt"
	"slices"
	"strings"
)

// The direct resource check: an accepted write whose section saw another
// process's accepted write land between its read and its own write
// overwrote that write without having seen it. Reads come from the resource
// itself, so this is the only way the counter history stops being
// linearizable; porcupine's resource verdict is the reference.

func lostUpdateViolations(t *trace, w *witnesses) []Violation {
	acc := t.ints[:0] // indexes in sections of accepted writes, in write order
	for i, s := range t.sections {
		if s.accepted {
			acc = append(acc, i)
		}
	}
	t.ints = acc[:0]
	var vs []Violation
	for j, i := range acc {
		s := t.sections[i]
		// Writes land in order, so when the accepted write just before this
		// one came before its read, none came between: the usual case, and
		// no search.
		if j == 0 || t.sections[acc[j-1]].writeIdx < s.readIdx {
			continue
		}
		k, _ := slices.BinarySearchFunc(acc, s.readIdx, func(j, idx int) int { return t.sections[j].writeIdx - idx })
		var over []string
		procs := []int{s.proc}
		wit := []int{s.readIdx, s.writeIdx}
		for ; k < len(acc) && t.sections[acc[k]].writeIdx < s.writeIdx; k++ {
			o := t.sections[acc[k]]
			if o.proc == s.proc {
				continue
			}
			procs = append(procs, o.proc)
			wit = append(wit, o.writeIdx)
			over = append(over, fmt.Sprintf("%s's write of %d at %s", t.name(o.proc), o.wrote, since(o.writeAt)))
		}
		if len(over) == 0 {
			continue
		}
		vs = append(vs, Violation{
			Kind:      KindLostUpdate,
			Processes: names(t, procs...),
			From:      s.readAt,
			To:        s.writeAt,
			Detail: fmt.Sprintf("%s read %d at %s and wrote %d at %s%s, over %s, which it never saw",
				t.name(s.proc), s.read, since(s.readAt), s.wrote, since(s.writeAt), fenced(s.fence), strings.Join(over, " and ")),
			Witness: w.events(wit),
		})
	}
	return vs
}
