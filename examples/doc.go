// Package examples holds algorithm files (simrun run --algo-file FILE) that
// reproduce built-in locks command for command, and the tests that prove it:
// each gives the same verdict and the same digest as its built-in on every
// built-in scenario.
package examples
