package reports

import (
	"bytes"
	_ "embed"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

//go:embed report.html.tmpl
var reportTmpl string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	// f writes a coordinate with at most one decimal: short, stable output.
	"f": func(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) },
}).Parse(reportTmpl))

type htmlViolation struct {
	Kind, Processes, When, Detail string
	Witness                       []string
}

type htmlHold struct {
	Proc, When, End, Lease string
}

type htmlCommand struct {
	Req                                    uint64
	Proc, Node, Sent, Ran, Done            string
	Command, Reply, Key, Outcome, RowClass string
}

type htmlData struct {
	Scenario, Summary, Source, Narrative string
	Algorithm, AlgorithmSource           string
	Params                               []string // judge.Override, one each
	Assumptions                          string   // AssumptionsLine
	NextSteps                            []judge.NextStep
	Seed                                 uint64
	Verdict, VerdictClass, Expect        string
	Says                                 string // after the verdict: VerdictQualifier
	Violations                           []htmlViolation
	Holds                                []htmlHold
	MoreHolds                            int
	Linearizable, ResourceLinearizable   string
	Stats, Cut, Digest                   string
	SVG                                  svgData
	Legend                               []htmlLegend
	Versions                             []string
	Key                                  string
	Faults                               []string
	Writes                               []string // to the protected resource
	Commands                             []htmlCommand
	// Porcupine is porcupine's own page, put in an iframe's srcdoc: escaped
	// as an attribute value, it stays one self-contained file.
	Porcupine    string
	PorcupineErr string
}

type htmlLegend struct{ Class, Text string }

// WriteHTML writes one self-contained HTML page about an outcome: verdict and
// witnesses, the narrative, an SVG timeline with details on hover, the
// command trace, and porcupine's visualisation. It loads nothing from the
// network. An error is a failure to write; a porcupine failure is shown in
// the page.
func WriteHTML(w io.Writer, o *judge.Outcome) error {
	var porc bytes.Buffer
	perr := model.WritePorcupineHTML(o.Result.History, model.Options{TTL: o.Prepared.Lifetime()}, &porc)
	d := htmlReport(o)
	if perr != nil {
		d.PorcupineErr = perr.Error()
	} else {
		d.Porcupine = porc.String()
	}
	return reportTemplate.Execute(w, d)
}

func htmlReport(o *judge.Outcome) htmlData {
	j := JSON(o)
	h := &o.Result.History
	p := newPicture(o)
	p.ev.round = precision(fitPixels(p.points, p.end, p.keep(), svgPlotW, svgFoldW).step)
	trace := commandTrace(h)
	witness := witnessReqs(o.Verdict.Violations)
	summary, narrative := o.Scenario.Wording(o.Prepared)
	d := htmlData{
		Scenario: j.Scenario, Summary: summary, Source: CiteList(o.Scenario.Source),
		Narrative: strings.TrimSpace(narrative),
		Algorithm: j.Algorithm, AlgorithmSource: algoSource(o),
		Seed: j.Seed, Verdict: j.Verdict, VerdictClass: "bad", Expect: j.Expect,
		Says:         VerdictQualifier(j.Verdict, j.SafetyBroken, j.Vacuous),
		Linearizable: j.Linearizable.String(), ResourceLinearizable: j.ResourceLinearizable.String(),
		Stats: strings.TrimSpace(statsLine(j)), Cut: j.Cut, Digest: j.Digest, Key: p.key,
		Assumptions: AssumptionsLine(j.Assumptions), NextSteps: j.NextSteps,
	}
	for _, v := range j.Overrides {
		d.Params = append(d.Params, v.String())
	}
	if j.Verdict == model.VerdictSafe {
		d.VerdictClass = "good"
	}
	for _, v := range o.Verdict.Violations {
		hv := htmlViolation{Kind: v.Kind, Processes: strings.Join(v.Processes, ", "), When: p.ev.window(v.From, v.To),
			Detail: v.Detail}
		for _, e := range v.Witness {
			hv.Witness = append(hv.Witness, p.ev.event(e))
		}
		d.Violations = append(d.Violations, hv)
	}
	shown, more := shownHolds(p)
	for _, hr := range shown {
		end := holdEnd(hr)
		for _, at := range hr.refused {
			end += "; its write at " + p.ev.at(at) + " was refused (stale fence)"
		}
		d.Holds = append(d.Holds, htmlHold{hr.name, p.ev.window(hr.from, hr.to), end, strings.Trim(holdLease(hr), " ()")})
	}
	d.MoreHolds = more
	d.SVG = p.svg(witness, trace)
	d.Legend = svgLegend(d.SVG)
	for _, v := range p.versions {
		d.Versions = append(d.Versions, v.label+" "+v.describe(&p.ev))
	}
	for _, e := range p.faults {
		d.Faults = append(d.Faults, p.ev.event(e))
	}
	for _, e := range h.Events {
		if e.Kind == sim.KindResourceWrite {
			d.Writes = append(d.Writes, p.ev.event(e))
		}
	}
	for _, r := range trace {
		c := htmlCommand{Req: r.req, Proc: r.proc, Node: r.node, Sent: "?", Ran: "-", Done: "-",
			Command: r.command(&p.ev), Reply: r.reply, Key: r.key, Outcome: r.outcome}
		if r.hasRan || r.hasSent {
			c.Sent = p.ev.at(r.sent)
		}
		if r.hasRan {
			c.Ran = p.ev.at(r.ran)
		}
		if r.hasDone {
			c.Done = p.ev.at(r.done)
		}
		if witness[r.req] {
			c.RowClass = "witness"
		}
		d.Commands = append(d.Commands, c)
	}
	return d
}

// legendEntries are every class the SVG draws with a fill, in legend
// order; the legend shows those a report uses, so every colour on the page
// is explained and none that is not there.
var legendEntries = []htmlLegend{
	{"st-idle", "idle"}, {"st-in-a-lock-call", "in Acquire / Release"}, {"st-holding", "holding"},
	{"st-holding overlap", "holding while another holds"}, {"pause", "paused"}, {"st-crashed", "crashed"},
	{"key k0", "key present (one colour per version)"}, {"key-gone", "key absent"}, {"down", "node down"},
	{"cmd", "a command ran on the node"}, {"cmd witness", "a witness's command"},
	{"violation", "violation window"}, {"band", "violation window, across the processes"},
	{"fold", "a quiet stretch folded away"},
}

// svgLegend is the legend entries whose class the SVG uses; key versions
// k0…k5 share one entry.
func svgLegend(d svgData) []htmlLegend {
	used := map[string]bool{} // looked up only
	for _, rs := range [][]svgRect{d.Bands, d.Rects, d.Folds} {
		for _, r := range rs {
			c := r.Class
			if strings.HasPrefix(c, "key k") {
				c = "key k0"
			}
			used[c] = true
		}
	}
	var out []htmlLegend
	for _, e := range legendEntries {
		if used[e.Class] {
			out = append(out, e)
		}
	}
	return out
}

func statsLine(j RunJSON) string {
	return "acquired " + strconv.Itoa(j.Stats.Acquired) + " · failed " + strconv.Itoa(j.Stats.Failed) +
		" · commands " + strconv.Itoa(j.Stats.Commands) + " · " + strconv.FormatFloat(j.Stats.SimSeconds, 'f', 3, 64) + " s " + map[bool]string{true: "simulated", false: "wall-clock"}[j.Backend == "sim"]
}
