package model

import "strings"

// String is the verdict in words: "safe", or the verdict and each
// violation's kind and processes, "unsafe: overlap (c1, c2); lost-update
// (c2)", so that a Verdict printed with %v or in a test's log reads as the
// reports' verdict line, not as a struct.
func (v Verdict) String() string {
	if len(v.Violations) == 0 {
		return v.Verdict
	}
	var b strings.Builder
	b.WriteString(v.Verdict)
	for i, x := range v.Violations {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(x.Kind)
		if len(x.Processes) > 0 {
			b.WriteString(" (" + strings.Join(x.Processes, ", ") + ")")
		}
	}
	return b.String()
}
