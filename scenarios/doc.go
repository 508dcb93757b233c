// Package scenarios is the scenario format: what one run depends on (the
// lock and its parameters, clients and their clocks, nodes, network, fault
// plan, seed) as a YAML file that round-trips. It parses and validates files
// (every error one line naming the field), holds the built-in scenarios of
// the documented failure modes and the fault classes searches draw from, and
// prepares a scenario for the engine (Prepare: a sim.Config for a chosen
// lock). It knows no checker: running a prepared scenario and judging its
// history is package judge.
package scenarios
