package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/locksim/locksim/sim"
)

// WritePorcupineHTML writes porcupine's visualization of the lock history:
// one lane per process with its acquires and releases, and as annotations
// its failed acquires, pauses, crashes, restarts and clock jumps; node faults
// and overlaps get lanes of their own.
func WritePorcupineHTML(h sim.History, o Options, w io.Writer) (err error) {
	o = o.withDefaults()
	t := extract(&h)
	m := mutexModel(t)
	_, info := porcupine.CheckOperationsVerbose(m, mutexOps(t), o.Timeout)
	info.AddAnnotations(annotations(t))
	// porcupine panics if its own replay disagrees with its check; turn that
	// into an error at our package line.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("porcupine visualization: %v", r)
		}
	}()
	var page bytes.Buffer
	if err := porcupine.Visualize(m, info, &page); err != nil {
		return fmt.Errorf("porcupine visualization: %w", err)
	}
	_, err = w.Write(nameLanes(page.Bytes(), h.Procs))
	return err
}

// porcupine labels a client's lane with its number; these are the two
// places its page does (porcupine v1.3.1's visualization/index.js).
var laneLabels = [][2]string{
	{"const tag = i < realClients ? i.toString() : sortedTags[i - realClients]",
		"const tag = i < realClients ? locksimLane(i) : sortedTags[i - realClients]"},
	{"text.textContent = i < realClients ? i : sortedTags[i - realClients]",
		"text.textContent = i < realClients ? locksimLane(i) : sortedTags[i - realClients]"},
}

// nameLanes makes porcupine's page label lanes with the processes' names
// (c1, c2) instead of their indexes. A porcupine whose page differs keeps
// its numbers (a test notices).
func nameLanes(page []byte, procs []string) []byte {
	s := string(page)
	for _, l := range laneLabels {
		if !strings.Contains(s, l[0]) {
			return page
		}
	}
	names, err := json.Marshal(procs)
	if err != nil {
		return page
	}
	for _, l := range laneLabels {
		s = strings.Replace(s, l[0], l[1], 1)
	}
	fn := "<script>\nconst locksimNames = " + string(names) +
		"\nfunction locksimLane(i) { return i < locksimNames.length ? locksimNames[i] : String(i) }\n"
	return []byte(strings.Replace(s, "<script>", fn, 1))
}

const (
	colorFailed = "#e5e7eb"
	colorPause  = "#fde68a"
	colorCrash  = "#fca5a5"
	colorJump   = "#c7d2fe"
	colorBad    = "#f87171"
)

func annotations(t *trace) []porcupine.Annotation {
	var as []porcupine.Annotation
	lane := func(proc int, from, to sim.Time, desc, details, color string) {
		as = append(as, porcupine.Annotation{ClientId: proc, Start: int64(from), End: int64(to),
			Description: desc, Details: details, BackgroundColor: color})
	}
	tagged := func(tag string, from, to sim.Time, desc, details, color string) {
		as = append(as, porcupine.Annotation{Tag: tag, Start: int64(from), End: int64(to),
			Description: desc, Details: details, BackgroundColor: color})
	}
	for _, a := range t.failed {
		details := fmt.Sprintf("%s: call %s, return %s", t.name(a.proc), a.call, a.ret)
		if err := t.h.Events[a.idx].Err; err != "" {
			details += ", error: " + err
		}
		lane(a.proc, a.call, a.ret, "acquire failed", details, colorFailed)
	}
	for _, e := range t.h.Events {
		switch {
		case e.Kind == sim.KindProcEnd && e.Err != "" && e.Proc >= 0:
			lane(e.Proc, e.At, e.At, "client error", e.Err, colorBad)
		case e.Kind != sim.KindFault:
		case e.Proc >= 0:
			desc, to, color := faultBar(e)
			lane(e.Proc, e.At, to, desc, fmt.Sprintf("%s: %s at %s", t.name(e.Proc), desc, e.At), color)
		case e.Node >= 0:
			desc, to, color := faultBar(e)
			tagged(fmt.Sprintf("node %d", e.Node), e.At, to, desc, fmt.Sprintf("node %d: %s at %s", e.Node, desc, e.At), color)
		}
	}
	for _, o := range overlaps(t.holds) {
		a, b := t.holds[o.a], t.holds[o.b]
		desc := fmt.Sprintf("%s and %s both hold", t.name(a.proc), t.name(b.proc))
		tagged("overlap", o.from, min(o.to, t.end), desc, fmt.Sprintf("%s from %s", desc, o.from), colorBad)
	}
	return as
}

func signed(d time.Duration) string {
	if d >= 0 {
		return "+" + d.String()
	}
	return d.String()
}
