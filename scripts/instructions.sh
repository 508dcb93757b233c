#!/usr/bin/env bash
# instructions.sh: CPU instructions per run of the speed benchmarks, counted
# by valgrind (cachegrind), which the load of a shared machine does not move:
# where bench.sh's times swing by 15-25% between rounds, these counts repeat
# within about 1%, so they show a change of a few percent that times hide.
#
#   scripts/instructions.sh [BASE]   with BASE (a git revision), BASE's counts
#                                    before this tree's
#
# Each figure is the difference between two runs of one test binary (N1 and
# N2 iterations), divided by N2-N1, so that start-up and the benchmark's own
# set-up cancel out; the collector is off (GOGC=off), so that its pacing,
# which follows the machine's speed, does not count (so an allocation cut
# shows less here than in bench.sh's times). Test binaries are built
# with simrun's profile (cmd/simrun/default.pgo) as bench.sh builds them, and
# without it ("-pgo=off"), to show what the profile saves.
# Needs valgrind (Debian: apt-get install -y valgrind); takes a few minutes.
set -euo pipefail

base=${1:-}
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind (apt-get install -y valgrind)" >&2; exit 2; }
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# build DIR TAG: the sim and explore test binaries of the tree at DIR, with
# its profile (TAG) and, when it has one, without (TAG-nopgo).
variants=""
build() {
	local pgo=off
	variants+=" $2"
	if [[ -f $1/cmd/simrun/default.pgo ]]; then
		pgo=$1/cmd/simrun/default.pgo
		variants+=" $2-nopgo"
	fi
	for pkg in sim explore; do
		(cd "$1" && go test -c -pgo="$pgo" -o "$tmp/$2-$pkg.test" "./$pkg")
		if [[ $pgo != off ]]; then
			(cd "$1" && go test -c -pgo=off -o "$tmp/$2-nopgo-$pkg.test" "./$pkg")
		fi
	done
}
declare -A src=([new]=$PWD)
if [[ -n $base ]]; then
	git rev-parse --verify -q "$base^{commit}" >/dev/null || { echo "instructions.sh: BASE: no revision '$base'" >&2; exit 2; }
	mkdir "$tmp/base"
	git archive "$base" | tar -x -C "$tmp/base"
	src[old]=$tmp/base
	build "$tmp/base" old
fi
build . new

# count BINARY DIR BENCH N: instructions of N iterations of BENCH; valgrind's
# output and the benchmark's (a test binary writes its failures to stdout)
# are kept in $tmp/valgrind.log.
count() {
	(cd "$2" && GOGC=off valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$1" -test.run '^$' -test.bench "$3" -test.benchtime "$4x" -test.cpu 1 >"$tmp/valgrind.log" 2>&1) &&
		awk '/I +refs/ { gsub(",", "", $4); print $4 }' "$tmp/valgrind.log"
}

# per TAG PKG BENCH N1 N2 NAME: one line, instructions per iteration.
per() {
	local bin=$tmp/$1-$2.test dir=${src[${1%-nopgo}]}/$2 a b
	if ! (cd "$dir" && "$bin" -test.list "${3%%/*}" | grep -q .); then
		printf "%-10s %-42s %12s\n" "$1" "$6" "(no such benchmark in this tree)"
		return
	fi
	# A failed run, or a count awk cannot read, stops the script with the
	# run's last lines, not silently nor with a wrong figure.
	if ! a=$(count "$bin" "$dir" "$3" "$4") || ! b=$(count "$bin" "$dir" "$3" "$5") || [[ -z $a || -z $b ]]; then
		echo "instructions.sh: $1: $6: no instruction count (the benchmark or valgrind failed); the last lines:" >&2
		tail -n 15 "$tmp/valgrind.log" >&2
		exit 1
	fi
	printf "%-10s %-42s %12d instructions\n" "$1" "$6" $(((b - a) / ($5 - $4)))
}

for t in $variants; do
	per "$t" sim '^BenchmarkRunStandard$' 100 400 "RunStandard, a run"
	per "$t" sim '^BenchmarkRunStandardRaw$' 100 400 "RunStandardRaw, its commands alone"
	per "$t" explore '^BenchmarkExploreTokenAllFaults$/^workers=1$' 500 1500 "explore set-nx-px-token, all: a run"
done
