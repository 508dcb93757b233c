package realredis

import (
	"errors"
	"os"
	"path/filepath"
)

// libfaketime (Debian's package faketime) gives a server its own clock: it
// intercepts the clock calls of the process it is preloaded into and adds
// the offset written in a control file (FAKETIME_TIMESTAMP_FILE), read
// afresh at every call (FAKETIME_NO_CACHE), so rewriting the file steps the
// clock at once. Redis's key expiry reads that clock (mstime, gettimeofday):
// TestFaketimeStepsExpiry checks that a step expires a key. The monotonic
// clock is left alone (FAKETIME_DONT_FAKE_MONOTONIC), as an operator's or
// NTP's step leaves it: Redis's timers keep their pace.
//
// Debian's redis-server allocates with jemalloc, which calls clock_gettime
// while libfaketime is still starting and stops the server at once
// (libfaketime issue #130, "Unexpected recursive calls to clock_gettime()").
// glibc's libc_malloc_debug.so.0, preloaded first, gives the server glibc's
// malloc (it defines malloc, free, malloc_usable_size, ...) and jemalloc is
// never called to allocate.

// envLibfaketime overrides where libfaketime.so.1 is.
const envLibfaketime = "LOCKSIM_LIBFAKETIME"

var (
	faketimeLibs = []string{
		"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
		"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
		"/usr/lib/*/faketime/libfaketime.so.1",
		"/usr/lib/faketime/libfaketime.so.1",
		"/usr/local/lib/faketime/libfaketime.so.1",
	}
	mallocDebugLibs = []string{
		"/lib/x86_64-linux-gnu/libc_malloc_debug.so.0",
		"/lib/*/libc_malloc_debug.so.0",
		"/usr/lib/*/libc_malloc_debug.so.0",
	}
)

func findLib(env string, globs []string) string {
	if p := os.Getenv(env); env != "" && p != "" {
		return p
	}
	for _, g := range globs {
		if m, _ := filepath.Glob(g); len(m) > 0 {
			return m[0]
		}
	}
	return ""
}

// Faketime reports whether libfaketime can be preloaded into a server, and
// why not.
func Faketime() error {
	_, err := faketimeEnv("")
	return err
}

// faketimeEnv is the environment that runs a server under libfaketime with
// control as its control file.
func faketimeEnv(control string) ([]string, error) {
	ft := findLib(envLibfaketime, faketimeLibs)
	if ft == "" {
		return nil, errors.New("start: a node's clock moves, and libfaketime.so.1 is not installed " +
			"(Debian's package faketime; scripts/redis-server.sh installs it; or set " + envLibfaketime + ")")
	}
	md := findLib("", mallocDebugLibs)
	if md == "" {
		return nil, errors.New("start: libc_malloc_debug.so.0 (glibc 2.34 or later) is missing: " +
			"libfaketime cannot run in a redis-server that allocates with jemalloc")
	}
	return []string{
		"LD_PRELOAD=" + md + ":" + ft,
		"FAKETIME_TIMESTAMP_FILE=" + control,
		"FAKETIME_NO_CACHE=1",
		"FAKETIME_DONT_FAKE_MONOTONIC=1",
	}, nil
}
