//go:build race

package racedetect

// Enabled: this binary was built with -race.
const Enabled = true
