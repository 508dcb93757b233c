package node

import (
	"slices"
	"strconv"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"

	"github.com/locksim/locksim/internal/resp"
)

// A waiter's poll of a lock changes nothing: SET key token NX PX ttl or
// SETNX against a key that exists, GET, and a hash lock's script's EXISTS,
// HEXISTS and PTTL. Those are most of a long-TTL search's commands.
// answerPoll answers them without miniredis's dispatch and the reply's RESP
// text, doing to the data what that dispatch would: the clock step to now
// (TTLs counted down, the expired dropped; owed where it leaves the reply
// as it is, clockstep.go) and the key's access time
// (OBJECT IDLETIME) where the command sets it (SET, GET, EXISTS; not SETNX,
// HEXISTS or PTTL). TestPollsAsMiniredis runs both ways on random commands.

// The replies, as the RESP text miniredis writes parses.
var (
	pollNull = mustParse("$-1\r\n")
	pollZero = mustParse(":0\r\n")
	pollOne  = mustParse(":1\r\n")
	pollGone = mustParse(":-2\r\n")
)

func mustParse(s string) Reply {
	r, _, err := resp.ParseReplyKnown([]byte(s), nil)
	if err != nil {
		panic(err)
	}
	return r
}

// answerPoll is the reply to args (its name upper-case), a command from
// peer p that miniredis would run now (not queued in MULTI: the caller
// says), when it is one of these, on database 0:
//
//	SET k v NX [EX|PX|EXAT|PXAT n]   k exists: null (n as miniredis accepts it)
//	SETNX k v                        k exists: 0
//	GET k                            k a string, or none
//	EXISTS k                         0 or 1
//	PTTL k                           k none (-2), or with a TTL
//	HEXISTS k f                      k none (0), or a hash whose access
//	                                 time is now already (accessed)
//
// ok false otherwise, leaving it to miniredis.
func (n *Node) answerPoll(p *server.Peer, name string, args []string) (r Reply, ok bool) {
	if n.noPolls || n.selected || p.Resp3 || len(args) < 2 {
		return Reply{}, false
	}
	key := args[1]
	touched := false // the command set the key's access time
	switch {
	case name == "GET" && len(args) == 2:
		db, _ := n.pollDB(key)
		v, err := db.Get(key) // the access time
		switch err {
		case nil:
			r, touched = Reply{Kind: Bulk, Str: v}, true
		case miniredis.ErrKeyNotFound:
			r = pollNull
		default: // another type: miniredis's own error, the access time again at the same instant
			return Reply{}, false
		}
	case name == "EXISTS" && len(args) == 2:
		db, _ := n.pollDB(key)
		r, touched = pollZero, db.Exists(key) // the access time
		if touched {
			r = pollOne
		}
	case name == "PTTL" && len(args) == 2:
		db, over := n.pollDB(key)
		if n.typeOf(db, key) == "" {
			r = pollGone
		} else if ttl := n.ttlOf(db, key) - over; ttl > 0 {
			r = Reply{Kind: Int, Int: ttl.Nanoseconds() / 1_000_000}
		} else { // no TTL: miniredis says so
			return Reply{}, false
		}
	case name == "HEXISTS" && len(args) == 3:
		db, _ := n.pollDB(key)
		switch n.typeOf(db, key) {
		case "":
			r = pollZero
		case "hash":
			if n.accessed != key || !n.accessedAt.Equal(n.now) {
				return Reply{}, false // HKeys would set the access time, HEXISTS does not
			}
			r = pollZero
			if slices.Contains(n.hashFields(db, key), args[2]) {
				r = pollOne
			}
		default:
			return Reply{}, false
		}
	case name == "SETNX" && len(args) == 3:
		if db, _ := n.pollDB(key); n.typeOf(db, key) == "" { // no access time
			return Reply{}, false
		}
		r = pollZero
	case name == "SET" && len(args) > 3 && setNXOnly(args[3:]):
		if db, _ := n.pollDB(key); !db.Exists(key) { // the access time
			return Reply{}, false
		}
		r, touched = pollNull, true
	default:
		return Reply{}, false
	}
	if touched {
		n.accessed, n.accessedAt = key, n.now
	}
	n.polls++
	return r, true
}

// setNXOnly says whether SET's options opts are NX, with at most one EX,
// PX, EXAT or PXAT whose value miniredis's parse accepts (strconv.Atoi, > 0),
// in any order and case, and nothing else.
func setNXOnly(opts []string) bool {
	nx, ttl := false, false
	for i := 0; i < len(opts); i++ {
		switch o := opts[i]; {
		case IsName(o, "NX"):
			nx = true
		case !ttl && i+1 < len(opts) && (IsName(o, "PX") || IsName(o, "EX") || IsName(o, "PXAT") || IsName(o, "EXAT")):
			if v, err := strconv.Atoi(opts[i+1]); err != nil || v <= 0 {
				return false
			}
			ttl = true
			i++
		default:
			return false
		}
	}
	return nx
}
