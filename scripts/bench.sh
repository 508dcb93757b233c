#!/usr/bin/env bash
# bench.sh: the speed figures of the README's Speed section, in one run.
#
#   scripts/bench.sh [ROUNDS] [BASE]   ROUNDS rounds (default 10), medians printed;
#                                      with BASE (a git revision, e.g. main), the
#                                      same benchmarks of BASE side by side
#
# Each round (a few seconds: fixed, small iteration counts) runs, from test
# binaries built once, one after the other:
#   sim     BenchmarkSimOverRaw (SimCommand over RawDispatch in alternating
#           batches), BenchmarkRunStandard and BenchmarkRunStandardRaw, the
#           same run's commands straight into a node, and the engine's share
#           of a run from the two alternated (RunStandardOverRaw) (-cpu 1)
#   model   BenchmarkCheck10k, BenchmarkCheck10kSkipPorcupine (-cpu 1)
#   explore BenchmarkExploreScaling: 1 and 2 workers in alternating batches,
#           at Go's GOGC and at simrun's 400
#   simrun  explore of set-nx-px-token, all faults, 6,000 runs: 1 worker and
#           2 as built (its GC tuner on), 2 with GOGC=100 (off), 2 built
#           without its profile (-pgo=off), and 1 with --draw-ttl: what the
#           lock's own TTL (waiters polling through 30 s) costs over drawn ones
# The test binaries are built with simrun's profile, cmd/simrun/default.pgo,
# as `go build` builds simrun; `go test -bench` alone builds without it.
# Rounds interleave the benchmarks (and BASE's with this tree's), so that a
# ratio compares figures taken seconds apart on a machine whose load drifts;
# the load average is printed before and after, because on a shared machine
# it is most of the spread.
set -euo pipefail

rounds=${1:-10}
base=${2:-}
case $rounds in '' | *[!0-9]* | 0) echo "bench.sh: ROUNDS: want a positive integer, got '$rounds'" >&2; exit 2 ;; esac

cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# build DIR TAG: test binaries and simrun from the tree at DIR. The test
# binaries are built with simrun's profile (cmd/simrun/default.pgo, see
# scripts/pgo.sh), as simrun itself is, so that their figures are simrun's;
# TAG-simrun-nopgo is simrun built without it.
build() {
	local pgo=off
	[[ -f $1/cmd/simrun/default.pgo ]] && pgo=$1/cmd/simrun/default.pgo
	for pkg in sim model explore; do
		(cd "$1" && go test -c -pgo="$pgo" -o "$tmp/$2-$pkg.test" "./$pkg")
	done
	(cd "$1" && go build -o "$tmp/$2-simrun" ./cmd/simrun)
	(cd "$1" && go build -pgo=off -o "$tmp/$2-simrun-nopgo" ./cmd/simrun)
}
if [[ -n $base ]]; then # checked before anything is built
	git rev-parse --verify -q "$base^{commit}" >/dev/null || { echo "bench.sh: BASE: no revision '$base'" >&2; exit 2; }
fi
tags=new
declare -A src=([new]=$PWD)
build . new
if [[ -n $base ]]; then
	mkdir "$tmp/base"
	git archive "$base" | tar -x -C "$tmp/base"
	build "$tmp/base" old
	tags="old new"
	src[old]=$tmp/base
fi

# bench TAG PKG ARGS...: one benchmark run, its lines prefixed with TAG. A
# benchmark that fails stops the script with its output (a test binary
# writes its failures to stdout, which goes to $tmp/out otherwise).
bench() {
	local tag=$1 pkg=$2
	shift 2
	if ! (cd "${src[$tag]}/$pkg" && "$tmp/$tag-$pkg.test" -test.run '^$' "$@") >"$tmp/one" 2>&1; then
		echo "bench.sh: $tag $pkg $*: failed:" >&2
		cat "$tmp/one" >&2
		exit 1
	fi
	sed "s/^/$tag /" "$tmp/one" >>"$tmp/out"
}

# cli TAG NAME WORKERS ENV [BINARY [FLAG]]: simrun explore's runs/s as a
# benchmark line.
cli() {
	local out
	# shellcheck disable=SC2086 # FLAG is one word or none
	out=$(env "$4" "$tmp/$1-${5:-simrun}" explore --algo set-nx-px-token --faults all --runs 6000 --verdict client-error \
		--workers "$3" --json --out "$tmp/exo-$RANDOM$RANDOM" ${6:-} | sed -n 's/.*"runs_per_sec": *\([0-9.]*\).*/\1/p') || true
	# explore exits 1 on the client-error it is told to stop at; no figure
	# at all means simrun itself failed.
	if [ -z "$out" ]; then
		echo "bench.sh: simrun explore ($1, $2) printed no runs/s" >&2
		exit 1
	fi
	echo "$1 $2 1 $out runs/s" >>"$tmp/out"
}

echo "load before:$(uptime)"
for ((i = 1; i <= rounds; i++)); do
	for tag in $tags; do
		if [[ $tag == new ]] || grep -q SimOverRaw "${src[$tag]}/sim/bench_test.go"; then
			bench "$tag" sim -test.bench '^BenchmarkSimOverRaw$' -test.benchtime 150x -test.cpu 1
		else # a BASE from before it: the two benchmarks one after the other
			bench "$tag" sim -test.bench '^Benchmark(RawDispatch|SimCommand)$' -test.benchtime 150000x -test.cpu 1
		fi
		bench "$tag" sim -test.bench '^BenchmarkRunStandard(Raw|OverRaw)?$' -test.benchtime 500x -test.cpu 1 -test.benchmem
		bench "$tag" model -test.bench '^BenchmarkCheck10k$' -test.benchtime 10x -test.cpu 1
		bench "$tag" model -test.bench '^BenchmarkCheck10kSkipPorcupine$' -test.benchtime 100x -test.cpu 1
		if [[ $tag == new ]] || grep -q ExploreScaling "${src[$tag]}/explore/bench_test.go"; then
			bench "$tag" explore -test.bench '^BenchmarkExploreScaling$' -test.benchtime 3x
		else
			bench "$tag" explore -test.bench '^BenchmarkExploreTokenAllFaults$' -test.benchtime 3000x
		fi
		cli "$tag" CLIExplore1 1 X=1
		cli "$tag" CLIExploreDrawTTL1 1 X=1 simrun --draw-ttl
		cli "$tag" CLIExplore 2 X=1
		cli "$tag" CLIExploreGOGC100 2 GOGC=100
		cli "$tag" CLIExploreNoPGO 2 X=1 simrun-nopgo
	done
	echo "round $i/$rounds done" >&2
done
echo "load after: $(uptime)"
echo

# Medians: field is the value before the named unit on a benchmark's lines.
awk -v rounds="$rounds" -v tags="$tags" '
function median(tag, name, unit,    n, i, j, k, v, t, f) {
	n = 0
	for (k = 1; k <= nl; k++) {
		split(lines[k], f, /[ \t]+/)
		if (f[1] != tag || f[2] !~ "^" name "(-[0-9]+)?$") continue
		for (j = 3; j <= length(f); j++) if (f[j] == unit) v[++n] = f[j - 1] + 0
	}
	if (n == 0) return -1
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function report(tag) {
	raw = median(tag, "BenchmarkSimOverRaw", "raw-ns/cmd")
	simc = median(tag, "BenchmarkSimOverRaw", "sim-ns/cmd")
	ratio = median(tag, "BenchmarkSimOverRaw", "sim/raw")
	how = "alternating batches"
	if (ratio < 0) {
		raw = median(tag, "BenchmarkRawDispatch", "ns/op")
		simc = median(tag, "BenchmarkSimCommand", "ns/op")
		ratio = simc / raw
		how = "one after the other"
	}
	run = median(tag, "BenchmarkRunStandard", "ns/op")
	allocs = median(tag, "BenchmarkRunStandard", "allocs/op")
	floor = median(tag, "BenchmarkRunStandardRaw", "ns/op")
	share = median(tag, "BenchmarkRunStandardOverRaw", "engine-%")
	if (share < 0 && floor > 0) share = 100 * (run - floor) / run
	chk = median(tag, "BenchmarkCheck10k", "ns/op")
	skip = median(tag, "BenchmarkCheck10kSkipPorcupine", "ns/op")
	w1 = median(tag, "BenchmarkExploreScaling/gc=100", "runs/s-1w")
	w2 = median(tag, "BenchmarkExploreScaling/gc=100", "runs/s-2w")
	r = median(tag, "BenchmarkExploreScaling/gc=100", "2w/1w")
	t1 = median(tag, "BenchmarkExploreScaling/gc=400", "runs/s-1w")
	t2 = median(tag, "BenchmarkExploreScaling/gc=400", "runs/s-2w")
	tr = median(tag, "BenchmarkExploreScaling/gc=400", "2w/1w")
	if (r < 0) {
		w1 = median(tag, "BenchmarkExploreTokenAllFaults/workers=1", "runs/s")
		w2 = median(tag, "BenchmarkExploreTokenAllFaults/workers=2", "runs/s")
		r = w2 / w1
	}
	cli1 = median(tag, "CLIExplore1", "runs/s")
	cli = median(tag, "CLIExplore", "runs/s")
	cli100 = median(tag, "CLIExploreGOGC100", "runs/s")
	nopgo = median(tag, "CLIExploreNoPGO", "runs/s")
	drawn = median(tag, "CLIExploreDrawTTL1", "runs/s")
	if (tags != "new") printf "%s:\n", tag == "old" ? "BASE" : "this tree"
	printf "SimCommand / RawDispatch       %7.0f / %.0f ns = %.2fx, %s   (goal <= 1.5x)\n", simc, raw, ratio, how
	printf "RunStandard                    %7.0f runs/s on one core, %.0f allocs/run   (goal >= 4000 runs/s)\n", 1e9 / run, allocs
	if (floor > 0)
		printf "  its commands alone           %7.0f runs/s: the engine takes %.0f%% of a run\n", 1e9 / floor, share
	printf "Check10k with porcupine        %7.2f ms\n", chk / 1e6
	printf "Check10k without porcupine     %7.2f ms   (goal <= 2 ms)\n", skip / 1e6
	printf "explore set-nx-px-token, all   %7.0f runs/s with 1 worker, %.0f with 2: %.2fx   (goal >= 15000 on 2, >= 1.8x)\n", w1, w2, r
	if (tr > 0)
		printf "  at GOGC=400, as simrun runs %7.0f runs/s with 1 worker, %.0f with 2: %.2fx\n", t1, t2, tr
	printf "simrun explore                 %7.0f runs/s with 1 worker, %.0f with 2: %.2fx; %.0f with 2 and GOGC=100\n", cli1, cli, cli / cli1, cli100
	printf "  built without its profile    %7.0f runs/s with 2 (-pgo=off)\n", nopgo
	if (drawn > 0)
		printf "  with --draw-ttl (0.5-4 s)    %7.0f runs/s with 1 worker: a run at its own TTL costs %.2fx   (goal <= 2x)\n", drawn, drawn / cli1
}
{ lines[++nl] = $0 }
END {
	printf "medians of %d rounds\n", rounds
	n = split(tags, ts, " ")
	for (i = 1; i <= n; i++) report(ts[i])
}' "$tmp/out"
