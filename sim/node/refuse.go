package node

import "strings"

// unsimulated are commands whose meaning depends on waiting, on the
// connection's protocol or on the server process itself, none of which a
// node models: blocking would stall the scheduler, HELLO would switch the
// reply format under the client, SHUTDOWN and QUIT end what a fault should.
// INFO's counters belong to the host process, not to a run: a node reused for
// another run (Reset) would show them. miniredis's RANDOMKEY picks by Go's
// map order, which no seed fixes: two runs of one seed would differ.
// Pub/sub is the engine's (sim/pubsub.go, sim/pubsubconn.go), never the
// node's: UNSUBSCRIBE and PUNSUBSCRIBE here could only ever answer that the
// connection has no subscription, and for each miniredis makes a
// subscriber, starts two goroutines that only a closed connection ends, and
// hangs a callback on the connection: a kept connection (disconnect) would
// pile them up run after run.
var unsimulated = map[string]bool{
	"INFO": true, "RANDOMKEY": true,
	"BLPOP": true, "BRPOP": true, "BLMOVE": true, "BRPOPLPUSH": true,
	"BZPOPMIN": true, "BZPOPMAX": true, "BLMPOP": true, "BZMPOP": true,
	"WAIT": true, "WAITAOF": true,
	"SUBSCRIBE": true, "PSUBSCRIBE": true, "SSUBSCRIBE": true, "MONITOR": true,
	"UNSUBSCRIBE": true, "PUNSUBSCRIBE": true,
	"HELLO": true, "SHUTDOWN": true, "DEBUG": true, "QUIT": true,
}

// notInScripts are commands Redis refuses inside a script: they would nest
// scripts or transactions inside the script's own atomic step.
var notInScripts = map[string]bool{
	"EVAL": true, "EVALSHA": true, "EVAL_RO": true, "EVALSHA_RO": true,
	"SCRIPT": true, "MULTI": true, "EXEC": true, "DISCARD": true,
	"WATCH": true, "UNWATCH": true, "AUTH": true, "CLIENT": true,
}

// refusal returns the error for a command the node will not run, or "".
// name is upper case.
func refusal(name string, args []string) string {
	if unsimulated[name] {
		return "ERR locksim: " + name + " is not simulated"
	}
	if (name == "XREAD" || name == "XREADGROUP") && blocks(args[1:]) {
		return "ERR locksim: " + name + " BLOCK is not simulated"
	}
	return offsetRefusal(name, args)
}

// blocks reports whether XREAD/XREADGROUP options ask to block. Options end
// where STREAMS begins; option values (a group called BLOCK) are skipped.
func blocks(opts []string) bool {
	for i := 0; i < len(opts); i++ {
		switch strings.ToUpper(opts[i]) {
		case "STREAMS":
			return false
		case "BLOCK":
			return true
		case "GROUP":
			i += 2
		case "COUNT":
			i++
		}
	}
	return false
}
