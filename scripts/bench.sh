#!/usr/bin/env bash
# bench.sh: the speed figures of the README's Speed section, in one run.
#
#   scripts/bench.sh [ROUNDS]     ROUNDS rounds (default 10), medians printed
#
# Each round (a few seconds: fixed, small iteration counts) runs, from test
# binaries built once, one after the other:
#   sim     BenchmarkRawDispatch, BenchmarkSimCommand, BenchmarkRunStandard (-cpu 1)
#   model   BenchmarkCheck10k, BenchmarkCheck10kSkipPorcupine (-cpu 1)
#   explore BenchmarkExploreTokenAllFaults, workers=1 then workers=2
# Rounds interleave the benchmarks, so that a ratio compares figures taken
# seconds apart on a machine whose load drifts; the load average is
# printed before and after, because on a shared machine it is most of the
# spread.
set -euo pipefail

rounds=${1:-10}
case $rounds in '' | *[!0-9]* | 0) echo "bench.sh: ROUNDS: want a positive integer, got '$rounds'" >&2; exit 2 ;; esac

cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for pkg in sim model explore; do
	go test -c -o "$tmp/$pkg.test" "./$pkg"
done

echo "load before:$(uptime)"
for ((i = 1; i <= rounds; i++)); do
	(cd sim && "$tmp/sim.test" -test.run '^$' -test.bench '^Benchmark(RawDispatch|SimCommand)$' \
		-test.benchtime 200000x -test.cpu 1 -test.benchmem) >>"$tmp/out"
	(cd sim && "$tmp/sim.test" -test.run '^$' -test.bench '^BenchmarkRunStandard$' \
		-test.benchtime 500x -test.cpu 1 -test.benchmem) >>"$tmp/out"
	(cd model && "$tmp/model.test" -test.run '^$' -test.bench '^BenchmarkCheck10k$' -test.benchtime 10x -test.cpu 1) >>"$tmp/out"
	(cd model && "$tmp/model.test" -test.run '^$' -test.bench '^BenchmarkCheck10kSkipPorcupine$' -test.benchtime 100x \
		-test.cpu 1) >>"$tmp/out"
	(cd explore && "$tmp/explore.test" -test.run '^$' -test.bench '^BenchmarkExploreTokenAllFaults$' \
		-test.benchtime 3000x) >>"$tmp/out"
	echo "round $i/$rounds done" >&2
done
echo "load after: $(uptime)"
echo

# Medians: field is the value before the named unit on a benchmark's lines.
awk -v rounds="$rounds" '
function median(name, unit,    line, n, i, j, k, v, t) {
	n = 0
	for (k = 1; k <= nl; k++) {
		split(lines[k], f, /[ \t]+/)
		if (f[1] !~ "^" name "(-[0-9]+)?$") continue
		for (j = 2; j <= length(f); j++) if (f[j] == unit) v[++n] = f[j - 1] + 0
	}
	if (n == 0) return -1
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
{ lines[++nl] = $0 }
END {
	raw = median("BenchmarkRawDispatch", "ns/op")
	simc = median("BenchmarkSimCommand", "ns/op")
	run = median("BenchmarkRunStandard", "ns/op")
	allocs = median("BenchmarkRunStandard", "allocs/op")
	chk = median("BenchmarkCheck10k", "ns/op")
	skip = median("BenchmarkCheck10kSkipPorcupine", "ns/op")
	w1 = median("BenchmarkExploreTokenAllFaults/workers=1", "runs/s")
	w2 = median("BenchmarkExploreTokenAllFaults/workers=2", "runs/s")
	printf "medians of %d rounds\n", rounds
	printf "SimCommand / RawDispatch       %7.0f / %.0f ns = %.2fx   (goal <= 1.5x)\n", simc, raw, simc / raw
	printf "RunStandard                    %7.0f runs/s on one core, %.0f allocs/run   (goal >= 4000 runs/s)\n", 1e9 / run, allocs
	printf "Check10k with porcupine        %7.2f ms\n", chk / 1e6
	printf "Check10k without porcupine     %7.2f ms   (goal <= 2 ms)\n", skip / 1e6
	printf "explore set-nx-px-token, all   %7.0f runs/s with 1 worker, %.0f with 2: %.2fx   (goal >= 15000 on 2, >= 1.8x)\n", w1, w2, w2 / w1
}' "$tmp/out"
