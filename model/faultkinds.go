package model

import (
	"fmt"

	"github.com/locksim/locksim/sim"
)

// faultBar is how the timeline shows fault event e: its words, where its
// bar ends, its colour. It reads the kind's words (fault.Kind.Bar) and
// facts, never its name, so a new kind with the facts of an old one needs
// no change here; the checkers read the facts too (EndsLife, Pauses,
// LosesData).
func faultBar(e sim.Event) (desc string, to sim.Time, color string) {
	k, words := e.Fault, e.Fault.Bar()
	end := e.At + sim.Time(e.Dur)
	switch {
	case words == "":
		return k.String(), e.At, colorJump
	case k.Pauses() || k.StopsWatchdog():
		return fmt.Sprintf("%s %v", words, e.Dur), end, colorPause
	case k.Crashes():
		return words, e.At, colorCrash
	case k.EndsLife():
		return fmt.Sprintf("%s (life %d)", words, e.Incarnation), e.At, colorCrash
	case k.ShiftsClock():
		return words + " " + signed(e.Dur), e.At, colorJump
	case k.Promotes() && e.Value == 0: // no replica: an outage only, the key stays
		return fmt.Sprintf("%s: no replica to promote, down %v", words, e.Dur), end, colorCrash
	case k.Promotes():
		return fmt.Sprintf("%s: primary lost, replica promoted after %v", words, e.Dur), end, colorCrash
	case k.LosesData():
		return words + ", " + RestartLoss(e) + fmt.Sprintf(", down %v", e.Dur), end, colorCrash
	case k.LosesCommand():
		// The timeout shows on the command's own result; the bar is the mark.
		return words + lossWait(e), e.At, colorJump
	}
	// Words and no drawn fact: a plain bar, with its length.
	if e.Dur > 0 {
		return fmt.Sprintf("%s %v", words, e.Dur), end, colorJump
	}
	return words, e.At, colorJump
}

// lossWait is how long a lost command's client waits, when the fault says.
func lossWait(e sim.Event) string {
	if e.Dur > 0 {
		return fmt.Sprintf(" (times out after %v)", e.Dur)
	}
	return ""
}
