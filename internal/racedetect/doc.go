// Package racedetect says whether the binary was built with the race
// detector, for the tests whose sizes or ceilings it changes: the detector
// multiplies a run's memory and time several times over, so a test that
// searches thousands of runs checks a sample under it, and a memory ceiling
// read from the test process's side grows with it.
package racedetect
