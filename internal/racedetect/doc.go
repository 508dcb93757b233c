// Package racedetect says whether the binary was built with the race
// detector, for the tests it resizes: the detector's own bookkeeping grows
// with every run a test binary makes (outside Go's heap, which stays a few
// MB), so a test that searches thousands of runs checks a sample under it,
// saying so, and the plain `go test` checks the whole.
package racedetect
