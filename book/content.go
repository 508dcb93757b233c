package book

// The book's own words: the order a course teaches the scenarios in, and
// what each document claims. They are text, not results: what locksim
// found is always the verdict of the run shown next to them.

// Chapter is one step of the course: scenarios, in the order to read them.
type Chapter struct {
	Title     string
	Intro     string
	Scenarios []string
}

// Chapters are the built-in scenarios in the order a course would teach
// them: the naive SETNX lock, the DEL race, GETSET, pauses, clocks, the
// reference locks, Redlock, then leases that are renewed. Every built-in is
// in exactly one chapter; Render refuses a scenario that is in none.
var Chapters = []Chapter{
	{"The naive SETNX lock", "SETNX a timestamp, DEL to release. Nobody reads the timestamp, and the fix that adds " +
		"EXPIRE does it in a second command: a holder that dies at the wrong moment blocks everyone, and so " +
		"does one lost reply.",
		[]string{"crash-deadlock", "setnx-expire-crash", "lost-setnx-reply"}},
	{"The DEL race", "The Redis page's first recovery from a dead holder: a waiter that finds an expired " +
		"timestamp DELs the key and SETNXs again. Two waiters can both do it.",
		[]string{"del-race"}},
	{"GETSET", "The page's \"sane\" recovery: GETSET a new timestamp and hold the lock only if the old one " +
		"was still expired. It wins the race, but the blog posts that copy it add their own bugs, and a " +
		"takeover that writes before it knows whether it won keeps the lock taken for ever once the holder dies.",
		[]string{"getset-race", "python-none-crash", "php-eval-stale-unlock", "set-get-deadlock"}},
	{"Pauses", "A holder that stops (a GC pause, a slow request) outlives its timeout. Another client " +
		"takes the lock; the sleeper wakes and releases a lock that is no longer its own.",
		[]string{"pause-del-release", "checked-release-race", "set-get-pause"}},
	{"Clocks", "Every timestamp lock compares a value written by one client's clock with another " +
		"client's clock. A clock ahead by L takes L off every holder's timeout, whatever the unit.",
		[]string{"clock-skew-steal", "second-resolution", "second-resolution-ms"}},
	{"The reference locks", "SET NX PX with a random token and a compare-and-delete release fixes every " +
		"bug above that is in the code. A pause longer than the TTL still gives two holders; a fencing " +
		"token makes the protected resource refuse the late write.",
		[]string{"token-pause", "fenced-pause"}},
	{"Redlock", "Five independent nodes and a majority. A node that forgets (a restart without " +
		"persistence) or whose clock jumps lets a second client win a majority too. The page's own " +
		"remedies hold: a restart delayed past the longest TTL, or AOF with fsync always; " +
		"AOF's default fsync every second still loses a lock taken in the last second.",
		[]string{"redlock-node-restart", "redlock-delayed-restart", "redlock-aof-everysec", "redlock-aof-always",
			"redlock-clock-jump"}},
	{"Leases kept alive", "Production locks renew: redsync's Extend, Redisson's watchdog every third of the TTL, " +
		"often with a re-entrant hash of owner → count. A renewal lets a holder work past one TTL, and a " +
		"failed one tells it to stop writing; neither survives a pause longer than the TTL between two " +
		"renewals, and a watchdog keeps a stalled but living holder's lock for ever.",
		[]string{"token-extend-renewed", "token-extend-pause", "reentrant-watchdog", "watchdog-gc-pause",
			"watchdog-stalled-holder", "token-scope-retry"}},
	{"Replicas and failover", "Replication is asynchronous: a primary that dies before its replica has the " +
		"lock takes the lock with it, and the promoted replica grants it again. WAIT narrows that window to " +
		"the writes slower than its timeout; a lock that goes on when WAIT answers fewer replicas than asked " +
		"is still lost.",
		[]string{"failover-lost-lock", "failover-wait", "failover-wait-lagging"}},
}

// claims are what each document says its lock does, in a sentence or
// two, by document id.
var claims = map[string]string{
	"redis-setnx-page": "A timestamp in the value lets waiters detect a dead holder. Recovering with DEL " +
		"then SETNX is racy; the GETSET recovery (client C4) is sane; and a holder should check its " +
		"timeout before the DEL that releases, so that a long block cannot delete another client's lock.",
	"lihao21-python": "Retells the Redis page: the DEL race, and the GETSET recovery as the fix, in Python " +
		"with whole-second timestamps (LOCK_TIMEOUT = 3) and a release that checks the timeout first.",
	"toymoban-java": "A timestamp in the value avoids the deadlock of SETNX then EXPIRE (§5); clocks must " +
		"agree, and millisecond timestamps make the comparison safe (§7); a holder that runs past its " +
		"timeout and then deletes the new holder's lock is left unsolved (§8).",
	"predis-lua": "Lua scripts make the lock atomic: one script SETNXes, checks and GETSETs with an " +
		"EXPIRE; the unlock script deletes the lock if it still exists and has not expired.",
	"php-setnx-mutex": "SETNX a timestamp 30 s ahead; take an expired lock over with SET … GET, which " +
		"returns the old timestamp atomically, so only one waiter wins; this stops duplicate orders.",
}

// classHelp says what each fault class brings, for the matrix legend.
var classHelp = []struct{ Class, Text string }{
	{"none", "no faults, contention only"},
	{"crash", "clients crash, some come back as fresh processes"},
	{"pause", "clients stop for up to several lock lifetimes"},
	{"skew", "client and node clocks start apart and drift"},
	{"jump", "client and node clocks jump forwards or backwards"},
	{"net", "latency, lost requests and replies, client timeouts"},
	{"restart", "Redis nodes restart and lose their data"},
	{"failover", "every node has a replica; a primary is lost with what it had not replicated, and the replica is promoted"},
}
