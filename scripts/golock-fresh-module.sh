#!/usr/bin/env bash
# golock-fresh-module.sh: a user's module, made in a temporary directory
# outside the repository by docs/own-lock.md's lines only, uses golock
# with redsync at an older release and tests it: once with the `replace`
# lines, once with the `go work` lines. It checks that the old redsync is
# the one built (no module in golock's graph lifts it).
#
#   scripts/golock-fresh-module.sh [REDSYNC_VERSION]   (default v4.12.1)
#
# Exit 0 when both ways pass; 1 on a failure; it prints a reason and exits
# 0 when the module proxy cannot be reached (the old redsync cannot be
# fetched), unless LOCKSIM_REQUIRE_PROXY=1.
set -euo pipefail

checkout=$(cd "$(dirname "$0")/.." && pwd)
redsync=${1:-v4.12.1}
unset GOWORK GOFLAGS

if ! timeout 120 go list -m "github.com/go-redsync/redsync/v4@$redsync" >/dev/null 2>&1; then
  if [ "${LOCKSIM_REQUIRE_PROXY:-}" = 1 ]; then
    echo "golock-fresh-module.sh: redsync $redsync cannot be fetched and LOCKSIM_REQUIRE_PROXY=1"; exit 1
  fi
  echo "golock-fresh-module.sh: SKIP: the module proxy does not serve github.com/go-redsync/redsync/v4@$redsync (unreachable?)"
  exit 0
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/golock-fresh.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# The user's test: redsync over golock's go-redis client, searched under
# pauses. Check passes (inside its assumptions redsync is safe); Explore
# must find the overlap a pause past the TTL causes.
write_test() {
  cat >"$1/lock_test.go" <<'EOF'
package mylock

import (
	"context"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"

	"github.com/locksim/locksim/golock"
	"github.com/locksim/locksim/golock/goredisenv"
	"github.com/locksim/locksim/simtest"
)

func newLock(env *golock.Env) golock.Acquire {
	pool := goredis.NewPool(goredisenv.Client(env, 0))
	m := redsync.New(pool).NewMutex(env.Key,
		redsync.WithExpiry(env.TTL),
		redsync.WithGenValueFunc(env.Token),
		redsync.WithRetryDelayFunc(func(int) time.Duration {
			return time.Duration(50+env.Rand.IntN(200)) * time.Millisecond
		}))
	return func(ctx context.Context) (*golock.Lease, error) {
		if err := m.LockContext(ctx); err != nil {
			return nil, err
		}
		return &golock.Lease{Token: m.Value(), Release: func(ctx context.Context) error {
			_, err := m.UnlockContext(ctx)
			return err
		}}, nil
	}
}

func TestRedsync(t *testing.T) {
	golock.Check(t, newLock, golock.Faults("pause"), golock.TTL(8*time.Second), golock.With(simtest.Runs(300)))
}

func TestRedsyncPauseOverlap(t *testing.T) {
	f, err := golock.Explore(t, newLock, golock.Faults("pause"), golock.With(simtest.Runs(2000)), golock.With(simtest.SaveTo("")))
	if err != nil || f == nil || f.Verdict != "unsafe" {
		t.Fatalf("%v %v, want the pause overlap", f, err)
	}
}
EOF
}

# check_version DIR: the module builds the old redsync.
check_version() {
  got=$(cd "$1" && go list -m -f '{{.Version}}' github.com/go-redsync/redsync/v4)
  if [ "$got" != "$redsync" ]; then
    echo "golock-fresh-module.sh: redsync is $got in $1, want $redsync (lifted)"; exit 1
  fi
  echo "redsync $got (not lifted)"
}

echo "== replace lines (docs/own-lock.md)"
a="$dir/replace"
mkdir -p "$a"
write_test "$a"
(
  cd "$a"
  go mod init example.com/mylock >/dev/null 2>&1
  # docs/own-lock.md: from a checkout, with replace
  go mod edit \
    -replace github.com/locksim/locksim="$checkout" \
    -replace github.com/locksim/locksim/golock="$checkout/golock" \
    -replace github.com/locksim/locksim/golock/goredisenv="$checkout/golock/goredisenv"
  go get "github.com/go-redsync/redsync/v4@$redsync"
  go mod tidy
  go vet ./...
  go test ./...
)
check_version "$a"

echo "== go work lines (docs/own-lock.md)"
b="$dir/work"
mkdir -p "$b"
write_test "$b"
(
  cd "$b"
  go mod init example.com/mylock >/dev/null 2>&1
  go get "github.com/go-redsync/redsync/v4@$redsync" github.com/redis/go-redis/v9
  # docs/own-lock.md: from a checkout, with go work
  go work init .
  go work use "$checkout" "$checkout/golock" "$checkout/golock/goredisenv"
  go vet ./...
  go test ./...
)
check_version "$b"
echo "golock-fresh-module.sh: both ways pass with redsync $redsync"
