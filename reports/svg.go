package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// The SVG timeline draws the same picture as the terminal one, in pixels,
// with every shape's details in a <title> that browsers show on hover.

const (
	svgLabelW = 96  // the lane names' column
	svgPlotW  = 960 // the timeline's width
	svgLaneH  = 22
	svgGap    = 6
	svgAxisH  = 26
	svgFoldW  = 18
	svgMinW   = 1.5 // narrower shapes would vanish
)

type svgRect struct {
	X, Y, W, H float64
	Class      string
	Title      string
	Text       string // drawn inside when it fits
}

type svgText struct {
	X, Y  float64
	Class string
	Text  string
	Title string
}

type svgLane struct {
	Label string
	Title string
	Y     float64 // middle of the lane
}

type svgData struct {
	Width, Height float64
	Lanes         []svgLane
	Bands         []svgRect // violation windows, behind everything
	Rects         []svgRect
	Marks         []svgText
	Ticks         []svgText
	Folds         []svgRect
	Scale         string
}

func (p *picture) svg(witnessReqs map[uint64]bool, trace []traceRow) svgData {
	sc := fitPixels(p.points, p.end, p.keep(), svgPlotW, svgFoldW)
	d := svgData{Width: svgLabelW + float64(sc.width) + 40}
	x := func(t sim.Time) float64 { return svgLabelW + sc.x(t) }
	span := func(from, to sim.Time) (float64, float64) {
		x0, x1 := x(from), x(to)
		if x1-x0 < svgMinW {
			x1 = x0 + svgMinW
		}
		return x0, x1 - x0
	}
	y := float64(svgAxisH)
	lane := func(label, title string) float64 {
		top := y
		d.Lanes = append(d.Lanes, svgLane{Label: label, Title: title, Y: top + svgLaneH/2})
		y += svgLaneH + svgGap
		return top
	}
	procTop := y
	for _, l := range p.procs {
		top := lane(l.name, "process "+l.name)
		for _, s := range l.spans {
			if s.st == stAbsent {
				continue
			}
			x0, w := span(s.from, s.to)
			class := "st-" + strings.ReplaceAll(s.st.String(), " ", "-")
			h, yy := float64(svgLaneH), top
			if s.st == stIdle {
				h, yy = 4, top+svgLaneH/2-2 // idle is a thin line: the eye goes to the bars
			}
			when := p.ev.window(s.from, s.to)
			if !strings.HasPrefix(when, "at ") { // an instant already says its length
				when += " (" + dur(s.to-s.from) + ")"
			}
			title := fmt.Sprintf("%s %s: %s", l.name, s.what, when)
			d.Rects = append(d.Rects, svgRect{X: x0, Y: yy, W: w, H: h, Class: class, Title: title})
			if s.st != stHolding {
				continue
			}
			// The part of a hold that another holder shares is red.
			for _, win := range p.windows {
				if win.kind != model.KindOverlap || !slices.Contains(win.procs, l.name) {
					continue
				}
				if from, to := max(s.from, win.from), min(s.to, win.to); from < to {
					x0, w := span(from, to)
					d.Rects = append(d.Rects, svgRect{X: x0, Y: yy, W: w, H: h, Class: class + " overlap",
						Title: fmt.Sprintf("%s\nshared with another holder %s: %s", title, p.ev.window(from, to), win.detail)})
				}
			}
		}
		for _, ps := range l.pauses {
			x0, w := span(ps.from, ps.to)
			d.Rects = append(d.Rects, svgRect{X: x0, Y: top - 2, W: w, H: svgLaneH + 4, Class: "pause",
				Title: fmt.Sprintf("%s %s: %s", l.name, ps.detail, p.ev.window(ps.from, ps.to))})
		}
		for _, m := range l.marks {
			d.Marks = append(d.Marks, markText(m, x(m.at), top, l.name, p.ev.at(m.at)))
		}
	}
	procBottom := y - svgGap
	for _, l := range p.nodes {
		top := lane(l.name, fmt.Sprintf("the key %s on %s", p.key, l.name))
		d.Rects = append(d.Rects, svgRect{X: svgLabelW, Y: top + svgLaneH/2 - 0.5, W: float64(sc.width), H: 1, Class: "key-gone",
			Title: fmt.Sprintf("%s: %s absent", l.name, p.key)})
		for _, s := range l.spans {
			x0, w := span(s.from, s.to)
			if s.down {
				d.Rects = append(d.Rects, svgRect{X: x0, Y: top, W: w, H: svgLaneH, Class: "down",
					Title: fmt.Sprintf("%s down: %s", l.name, p.ev.window(s.from, s.to))})
				continue
			}
			v := p.versions[s.v]
			text := v.label
			if full := v.label + " " + keyContent(v.key, 24); float64(len(full))*6.5+6 < w {
				text = full
			} else if w < 10 {
				text = ""
			}
			d.Rects = append(d.Rects, svgRect{X: x0, Y: top + 2, W: w, H: svgLaneH - 4, Class: fmt.Sprintf("key k%d", s.v%6),
				Text: text, Title: fmt.Sprintf("%s %s = %s: %s\n%s", l.name, p.key, v.label, p.ev.window(s.from, s.to), v.describe(&p.ev))})
		}
		// A tick per command that ran on the node; the witness's stand out.
		for _, r := range trace {
			if r.node != l.name || !r.hasRan {
				continue
			}
			class := "cmd"
			if witnessReqs[r.req] {
				class = "cmd witness"
			}
			d.Rects = append(d.Rects, svgRect{X: x(r.ran) - 0.75, Y: top - 3, W: 1.5, H: 6, Class: class,
				Title: fmt.Sprintf("#%d %s at %s: %s → %s\nsent %s, %s", r.req, r.proc, p.ev.at(r.ran), r.command(&p.ev), r.reply, p.ev.at(r.sent), r.outcome)})
		}
		for _, m := range l.marks {
			d.Marks = append(d.Marks, markText(m, x(m.at), top, l.name, p.ev.at(m.at)))
		}
	}
	for _, w := range p.windows {
		top := lane(w.kind, w.detail)
		x0, wd := span(w.from, w.to)
		title := fmt.Sprintf("%s (%s) %s\n%s", w.kind, strings.Join(w.procs, ", "), p.ev.window(w.from, w.to), w.detail)
		d.Rects = append(d.Rects, svgRect{X: x0, Y: top + 3, W: wd, H: svgLaneH - 6, Class: "violation", Title: title})
		d.Bands = append(d.Bands, svgRect{X: x0, Y: procTop - 3, W: wd, H: procBottom - procTop + 6, Class: "band", Title: title})
	}
	d.Height = y + 4
	for _, f := range sc.folds() {
		x0 := x(f[0])
		d.Folds = append(d.Folds, svgRect{X: x0, Y: svgAxisH - 6, W: svgFoldW, H: d.Height - svgAxisH + 6, Class: "fold",
			Title: fmt.Sprintf("about %s hidden (%s → %s): nothing changes there", roundDur(f[1]-f[0]), roundDur(f[0]), roundDur(f[1]))})
	}
	var every sim.Time
	d.Ticks, every = svgTicks(&sc, x)
	d.Scale = "linear, ticks every " + dur(every)
	switch n := len(sc.folds()); n {
	case 0:
	case 1:
		d.Scale += "; a dashed break hides a quiet stretch (hover it)"
	default:
		d.Scale += fmt.Sprintf("; dashed breaks hide %d quiet stretches (hover them)", n)
	}
	return d
}

// roundDur is t to three significant digits: the pixel scale's folds start
// and end at arbitrary nanoseconds, which read badly ("2.963456789s").
func roundDur(t sim.Time) string {
	d := time.Duration(t)
	unit := time.Duration(1)
	for v := d; v >= 1000; v /= 10 {
		unit *= 10
	}
	return d.Round(unit).String()
}

func markText(m mark, x, top float64, who, at string) svgText {
	glyph := map[markKind]string{markCrash: "✕", markRestart: "↻", markJumpFwd: "»", markJumpBack: "«", markNodeRestart: "✕", markLost: "~", markOther: "*"}[m.kind]
	return svgText{X: x, Y: top + svgLaneH/2 + 5, Class: "mark", Text: glyph,
		Title: fmt.Sprintf("%s %s at %s", who, m.detail, at)}
}

// svgTicks puts a labelled tick at round times at least 90 px apart.
func svgTicks(sc *scale, x func(sim.Time) float64) ([]svgText, sim.Time) {
	every := sim.Time(1)
	for _, s := range niceSteps() {
		if float64(s)/float64(sc.step) >= 90 {
			every = s
			break
		}
	}
	var out []svgText
	add := func(t sim.Time, segStart bool) {
		if n := len(out); n > 0 && x(t)-out[n-1].X < 60 {
			if !segStart {
				return
			}
			out = out[:n-1] // a segment's start outranks the label before its fold
		}
		out = append(out, svgText{X: x(t), Y: 14, Class: "tick", Text: dur(t)})
	}
	for i, g := range sc.segs {
		first := (g.t0 + every - 1) / every * every
		if first != g.t0 {
			// Label the segment's start too: after a fold the reader needs it.
			add(g.t0, true)
		}
		for t := first; t <= sc.segEnd(i); t += every {
			add(t, t == g.t0)
		}
	}
	for i := range out {
		out[i].X = math.Round(out[i].X*10) / 10
	}
	return out, every
}
