#!/usr/bin/env bash
# testtime.sh [GO TEST ARGS...]: where the test suite's time goes.
#
# Runs go test -count=1 with the arguments given (default ./...), each test
# binary through this script (go test -exec), and prints every package's
# wall time and CPU time (user + system of the test binary and of the
# processes it waited for: the Node and PHP workers it starts, not the
# Python workers sim/foreign's zygote forks, which the zygote reaps, nor
# the reset Node workers still idle when the binary exits), the
# most CPU first, with the total and the wall time that total allows on
# this machine's cores. go test's own output goes to stderr.
#
#   scripts/testtime.sh                      # the whole suite
#   scripts/testtime.sh -race -short ./...   # the race pass
set -euo pipefail

if [ "${1:-}" = --exec ]; then # one test binary, as go test -exec runs it
	shift
	start=$EPOCHREALTIME
	rc=0
	"$@" || rc=$?
	end=$EPOCHREALTIME
	# times' second line: the user and system time of the waited-for
	# children (times in this shell: in $(…) it would time the subshell's).
	times >"$TESTTIME_OUT.$$"
	printf '%s %s %s %s\n' "$start" "$end" "$(tail -n 1 "$TESTTIME_OUT.$$")" "$PWD" >>"$TESTTIME_OUT"
	rm -f "$TESTTIME_OUT.$$"
	exit "$rc"
fi

cd "$(dirname "$0")/.."
root=$PWD
TESTTIME_OUT=$(mktemp "${TMPDIR:-/tmp}/testtime.XXXXXX")
export TESTTIME_OUT
trap 'rm -f "$TESTTIME_OUT"' EXIT
[ $# -gt 0 ] || set -- ./...

echo "load before:$(uptime)"
status=0
go test -count=1 -exec "$root/scripts/testtime.sh --exec" "$@" >&2 || status=$?
echo "load after: $(uptime)"
echo
cores=$(getconf _NPROCESSORS_ONLN)
rows=$(awk -v root="$root/" '
	function secs(t,   m) { # bash times: 1m2.345s
		m = t; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", t); sub(/s$/, "", t)
		return m * 60 + t
	}
	{
		dir = $0 # the folder, spaces and all: what follows the four times
		for (i = 1; i <= 4; i++) sub(/^[^ ]+ /, "", dir)
		pkg = index(dir "/", root) == 1 ? substr(dir "/", length(root) + 1) : dir
		sub(/\/$/, "", pkg)
		printf "%9.1f %9.1f  %s\n", secs($3) + secs($4), $2 - $1, pkg == "" ? "." : pkg
	}' "$TESTTIME_OUT" | sort -rn)
echo "  CPU (s)  wall (s)  package"
echo "$rows"
echo "$rows" | awk -v cores="$cores" '{ total += $1 } END {
	printf "%9.1f            total of %d test binaries: at least %.0f s of wall time on %d cores\n", total, NR, total / cores, cores }'
exit "$status"
