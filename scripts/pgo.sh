#!/usr/bin/env bash
# pgo.sh: remake cmd/simrun/default.pgo, the CPU profile Go's compiler uses
# to build simrun (profile-guided optimization: `go build` and `go run` of a
# main package read the default.pgo beside it). It inlines and lays out the
# hot paths of the code simrun spends its time in, miniredis's and
# gopher-lua's included, which the project cannot otherwise change.
#
#   scripts/pgo.sh
#
# The profile is taken from the benchmarks that do what simrun does most, so
# that it weighs the paths as a user's searches do:
#   explore  set-nx-px-token under every fault class, one worker (a search's
#            generate, simulate, check), and every documented bug's search
#            and shrink (the other algorithms, the other fault classes)
#   prove    a small exhaustive search (its schedules and replays)
#   sim      the standard run (scenarios run one by one: run, book)
# A profile only changes how fast simrun runs, never what it computes: the
# digests are the same with and without it (the transcripts' test builds with
# it). Remake it when the hot paths move; a stale profile still builds.
set -euo pipefail

cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# profile NAME PKG BENCH BENCHTIME: one benchmark's CPU profile, built
# without a profile, so that the new one does not feed on the old. A
# benchmark that fails stops the script with its output (go test writes a
# failure to stdout, which would be lost otherwise).
profile() {
	echo "pgo.sh: profiling $2 $3" >&2
	if ! (cd "$2" && go test -pgo=off -run '^$' -bench "$3" -benchtime "$4" -cpu 1 \
		-cpuprofile "$tmp/$1.prof" -o "$tmp/$1.test" . >"$tmp/$1.out" 2>&1); then
		cat "$tmp/$1.out" >&2
		echo "pgo.sh: $2 $3 failed; cmd/simrun/default.pgo is unchanged" >&2
		exit 1
	fi
}
profile token ./explore '^BenchmarkExploreTokenAllFaults$/^workers=1$' 20000x
profile bugs ./explore '^BenchmarkDocumentedBugs$' 1x
profile prove ./prove '^BenchmarkProveSmall$' 300x
profile run ./sim '^BenchmarkRunStandard$' 2000x

# pprof merges the profiles it is given into one, adding up their samples;
# its chatter is shown only when it fails.
if ! go tool pprof -proto "$tmp"/*.prof >"$tmp/merged.pgo" 2>"$tmp/pprof.err"; then
	cat "$tmp/pprof.err" >&2
	echo "pgo.sh: go tool pprof could not merge the profiles; cmd/simrun/default.pgo is unchanged" >&2
	exit 1
fi
mv "$tmp/merged.pgo" cmd/simrun/default.pgo
echo "pgo.sh: wrote cmd/simrun/default.pgo ($(wc -c <cmd/simrun/default.pgo) bytes)" >&2
