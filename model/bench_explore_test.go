package model_test

import (
	"testing"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// exploreHistories is the first n runs of the search explore's own
// benchmark makes (set-nx-px-token under every fault class, seed 1), each
// with the lifetime the search checks it with.
func exploreHistories(b *testing.B, n int) ([]sim.History, []model.Options) {
	b.Helper()
	classes, err := scenarios.ParseClasses("all")
	if err != nil {
		b.Fatal(err)
	}
	e, err := explore.New(explore.Options{Algorithm: "set-nx-px-token", Classes: classes, Seed: 1, Runs: n})
	if err != nil {
		b.Fatal(err)
	}
	hs := make([]sim.History, 0, n)
	os := make([]model.Options, 0, n)
	for i := range n {
		s := e.Scenario(i)
		p, err := s.Prepare("")
		if err != nil {
			b.Fatal(err)
		}
		res, _, err := judge.Verdict(p, model.Options{SkipPorcupine: true})
		if err != nil {
			b.Fatal(err)
		}
		hs = append(hs, res.History) // kept: the run is not released
		os = append(os, model.Options{TTL: p.Lifetime(), SkipPorcupine: true})
	}
	return hs, os
}

// BenchmarkCheckExplore is the checker's share of a search: one op checks
// one of the first 500 runs of explore's set-nx-px-token, all faults search
// with the direct checkers only, as the search does.
//
//	go test ./model -run '^$' -bench CheckExplore -cpu 1
func BenchmarkCheckExplore(b *testing.B) {
	hs, os := exploreHistories(b, 500)
	b.ResetTimer()
	for i := range b.N {
		k := i % len(hs)
		model.Check(hs[k], os[k])
	}
}
