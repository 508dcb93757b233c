#!/usr/bin/env bash
# redis-server.sh: a throwaway redis-server on a free loopback port, for the
# tests that compare locksim's node with real Redis (LOCKSIM_REDIS).
#
#   scripts/redis-server.sh start [DIR]   install redis-server if missing (apt-get, as root),
#                                          with redis-sentinel and faketime (--redis start's
#                                          failovers and node clocks), start it, print
#                                          127.0.0.1:PORT on stdout (one line) and DIR as the
#                                          last line on stderr
#   scripts/redis-server.sh stop DIR      stop the server started in DIR (SIGTERM, at most 10 s)
#   scripts/redis-server.sh install       only install what is missing
#
#   export LOCKSIM_REDIS=$(scripts/redis-server.sh start 2>dir.txt)
#   ...; scripts/redis-server.sh stop "$(tail -1 dir.txt)"
#
# The server listens on 127.0.0.1 only, with persistence off. DIR holds its
# pidfile (pid), logfile (log), address (addr) and nothing else of ours.
set -euo pipefail

die() { echo "redis-server.sh: $*" >&2; exit 1; }

# faketime_lib prints where libfaketime.so.1 is (nothing when it is not).
faketime_lib() {
  local f
  for f in /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1 \
    /usr/local/lib/faketime/libfaketime.so.1; do
    [ -e "$f" ] && { echo "$f"; return; }
  done
}

# install makes redis-server and redis-cli available, Debian's way, with
# what --redis start needs beside them: redis-sentinel (failovers) and
# faketime's libfaketime (node clocks). Without the server it stops; without
# the other two it warns, and the tests that need them skip, saying why.
install() {
  local need=() server=1
  if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    need+=(redis-server)
    server=0
  fi
  command -v redis-sentinel >/dev/null || need+=(redis-sentinel)
  [ -n "$(faketime_lib)" ] || need+=(faketime)
  [ ${#need[@]} -gt 0 ] || return 0
  local why=""
  if [ "$(id -u)" != 0 ]; then
    why="installing ${need[*]} needs root: run 'apt-get install -y ${need[*]}' as root"
  elif ! command -v apt-get >/dev/null; then
    why="apt-get is missing: install ${need[*]} by hand (redis-server 7)"
  else
    echo "redis-server.sh: installing ${need[*]} with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get update -qq >&2; then
      why="apt-get update failed"
    elif ! apt-get install -y -qq "${need[@]}" >&2; then
      why="apt-get install -y ${need[*]} failed"
    fi
  fi
  if ! command -v redis-server >/dev/null; then
    [ "$server" = 1 ] || die "redis-server is not installed: ${why:-apt-get installed no redis-server}"
  fi
  if [ -n "$why" ]; then
    echo "redis-server.sh: WARNING: $why; without redis-sentinel or faketime the tests of" \
      "failovers and node clocks skip" >&2
  fi
  return 0
}

# port_free reports whether nothing listens on 127.0.0.1:$1 (bash's /dev/tcp:
# a refused connection means free).
port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# free_port picks a port in the ephemeral range that nothing listens on.
free_port() {
  local port i
  for i in $(seq 1 50); do
    port=$((20000 + RANDOM % 30000))
    if port_free "$port"; then
      echo "$port"
      return
    fi
  done
  die "no free loopback port found in 50 tries"
}

start() {
  local dir=${1:-}
  install
  if [ -z "$dir" ]; then
    dir=$(mktemp -d "${TMPDIR:-/tmp}/locksim-redis.XXXXXX")
  else
    mkdir -p "$dir"
  fi
  dir=$(cd "$dir" && pwd)
  if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
    die "a server started in $dir is still running (pid $(cat "$dir/pid")): stop it first"
  fi
  rm -f "$dir/pid" "$dir/addr"

  # Another process may take the port between the check and the bind: retry.
  local port attempt
  for attempt in 1 2 3; do
    port=$(free_port)
    redis-server --port "$port" --bind 127.0.0.1 --protected-mode yes \
      --save '' --appendonly no \
      --daemonize yes --pidfile "$dir/pid" --logfile "$dir/log" --dir "$dir" \
      >/dev/null || die "redis-server did not start (see $dir/log)"
    # Bounded wait: 10 s for PONG.
    local i
    for i in $(seq 1 100); do
      # Redis writes its pidfile only once it listens, so a PONG before
      # that could come from someone else's server on the same port.
      if [ -f "$dir/pid" ] && [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ]; then
        echo "127.0.0.1:$port" >"$dir/addr"
        echo "$dir" >&2
        echo "127.0.0.1:$port"
        return
      fi
      if [ -f "$dir/pid" ] && ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
        break # it died: try another port
      fi
      if [ ! -f "$dir/pid" ] && [ "$i" -ge 50 ]; then
        break # no pidfile after 5 s: the bind failed (port taken?)
      fi
      sleep 0.1
    done
    if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
      stop "$dir" 2>/dev/null || true
      die "redis-server on 127.0.0.1:$port did not answer PING within 10 s (see $dir/log)"
    fi
  done
  die "redis-server exited at start three times (see $dir/log)"
}

stop() {
  local dir=${1:-}
  [ -n "$dir" ] || die "usage: redis-server.sh stop DIR"
  [ -f "$dir/pid" ] || die "$dir/pid is missing: no server was started in $dir"
  local pid
  pid=$(cat "$dir/pid")
  [[ "$pid" =~ ^[0-9]+$ ]] || die "$dir/pid does not hold a pid"
  if ! kill -0 "$pid" 2>/dev/null; then
    rm -f "$dir/pid"
    echo "redis-server.sh: pid $pid had already exited" >&2
    return
  fi
  kill "$pid"
  # Bounded wait: 10 s, then SIGKILL.
  local i
  for i in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$dir/pid"; return; }
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/pid"
  die "redis-server pid $pid did not exit within 10 s of SIGTERM: killed"
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) shift; stop "$@" ;;
  install) install ;;
  *) die "usage: redis-server.sh start [DIR] | stop DIR | install" ;;
esac
