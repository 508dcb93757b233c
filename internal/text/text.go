// Package text holds the few string helpers every layer of locksim words its
// messages with, so that each is written once.
package text

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// FirstLine is s up to its first line break (\n or \r): a one-line error
// message from one that may run on.
func FirstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// OneLine is s with its control characters escaped as Go writes them in a
// string ("\n", "\r", "\x00"): a message that names what a file wrote (a
// YAML key may hold a line break) stays one line and says what was there.
func OneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Plural is "" when n is 1 and suffix otherwise: "fault"+Plural(n, "s"),
// "process"+Plural(n, "es").
func Plural(n int, suffix string) string {
	if n == 1 {
		return ""
	}
	return suffix
}

// Count is n and the noun, in the plural unless n is 1: "1 fault",
// "2 faults", "3 processes".
func Count(n int, noun, suffix string) string {
	return strconv.Itoa(n) + " " + noun + Plural(n, suffix)
}

// Seconds is d in seconds rounded to the microsecond, so JSON shows
// 5.631966, not 5.631965943000001.
func Seconds(d time.Duration) float64 {
	return math.Round(d.Seconds()*1e6) / 1e6
}
