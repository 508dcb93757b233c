#!/usr/bin/env bash
# foreign-deps.sh: what lock programs in Python, PHP and Node need to run in
# the simulation (docs/foreign.md): Debian's python3-redis (for
# /usr/bin/python3, the interpreter sim/foreign picks), php-cli with
# php-uopz (the PHP shim's function replacement) and php-nrk-predis (predis,
# /usr/share/php/Predis), node and npm, then the npm packages of
# examples/foreign/node (ioredis, both redlocks, and @sinonjs/fake-timers,
# which the Node shim loads) from its package-lock.json.
#
#   scripts/foreign-deps.sh
#
# Idempotent: it installs only what is missing and says what it did. apt-get
# runs only as root (after one apt-get update). Node and npm that are there
# already, Debian's or not, are used as they are (a Node without Debian's
# npm package may bring its own npm, and the two conflict). It exits
# non-zero only when something is still missing at the end.
set -uo pipefail
cd "$(dirname "$0")/.."

say() { echo "foreign-deps.sh: $*"; }
failed=0

need=()
if [ -x /usr/bin/python3 ]; then
  /usr/bin/python3 -c 'import redis' 2>/dev/null || need+=(python3-redis)
elif command -v python3 >/dev/null && python3 -c 'import redis' 2>/dev/null; then
  :
else
  need+=(python3 python3-redis)
fi
php_ok() { php -d uopz.exit=1 -r 'exit(extension_loaded("uopz") && is_file("/usr/share/php/Predis/autoload.php") ? 0 : 1);' 2>/dev/null; }
if ! php_ok; then
  command -v php >/dev/null || need+=(php-cli)
  php -m 2>/dev/null | grep -qx uopz || need+=(php-uopz)
  [ -f /usr/share/php/Predis/autoload.php ] || need+=(php-nrk-predis)
fi
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)

if [ ${#need[@]} -eq 0 ]; then
  say "python3-redis, php with uopz and predis, node and npm are there already"
elif [ "$(id -u)" != 0 ]; then
  say "missing ${need[*]}, and not root to apt-get install them"
elif ! command -v apt-get >/dev/null; then
  say "missing ${need[*]}, and no apt-get to install them"
else
  say "apt-get install ${need[*]}"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"; }; then
    say "apt-get install ${need[*]} failed"
  fi
fi

if [ -x /usr/bin/python3 ]; then
  if /usr/bin/python3 -c 'import redis' 2>/dev/null; then
    say "python: /usr/bin/python3 $(/usr/bin/python3 -c 'import sys, redis; print("%d.%d.%d" % sys.version_info[:3], "with redis", redis.__version__)')"
  else
    say "python: /usr/bin/python3 cannot import redis"; failed=1
  fi
elif command -v python3 >/dev/null && python3 -c 'import redis' 2>/dev/null; then
  say "python: $(command -v python3) with redis"
else
  say "python: no python3 with redis"; failed=1
fi

if php_ok; then
  say "php: $(command -v php) $(php -r 'echo PHP_VERSION;') with uopz $(php -r 'echo phpversion("uopz");') and /usr/share/php/Predis"
else
  say "php: no php with uopz and /usr/share/php/Predis"; failed=1
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  say "node: $(command -v node || echo 'no node') / $(command -v npm || echo 'no npm'): cannot install examples/foreign/node's packages"
  exit 1
fi
say "node: $(command -v node) $(node --version), npm $(npm --version)"

# npm ci when node_modules is not what package-lock.json says (npm ls
# checks the installed tree against the lockfile), so a second run does
# nothing.
dir=examples/foreign/node
if [ -d "$dir/node_modules" ] && (cd "$dir" && npm ls --all >/dev/null 2>&1); then
  say "$dir/node_modules is up to date with its package-lock.json"
elif (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error); then
  say "npm ci in $dir"
else
  say "npm ci in $dir failed"; failed=1
fi
if ! (cd "$dir" && node -e 'require.resolve("@sinonjs/fake-timers"); require.resolve("ioredis"); require.resolve("redlock4"); require.resolve("redlock5")') 2>/dev/null; then
  say "$dir: the Node shim's packages do not resolve"; failed=1
fi
exit $failed
