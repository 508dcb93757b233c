package node

import (
	"strconv"

	"github.com/alicebob/miniredis/v2/server"

	"github.com/locksim/locksim/internal/resp"
)

// A waiter's poll of a string lock (SET key token NX PX ttl, or SETNX)
// against a key that exists changes nothing and replies null (or 0): most
// of a long-TTL search's commands. heldSetNX answers it without miniredis's
// dispatch and the reply's RESP text, doing to the data what that dispatch
// would: the clock step to now (TTLs counted down, the expired dropped) and,
// for SET, the key's access time (OBJECT IDLETIME), which SETNX leaves
// alone. TestHeldSetNXAsMiniredis runs both ways on random commands.

// The replies, as the RESP text miniredis writes parses.
var (
	heldNull = mustParse("$-1\r\n")
	heldZero = mustParse(":0\r\n")
)

func mustParse(s string) Reply {
	r, _, err := resp.ParseReplyKnown([]byte(s), nil)
	if err != nil {
		panic(err)
	}
	return r
}

// heldSetNX is the reply to args, from client conn's peer p, when args is
// a SET with NX (and at most one EX, PX, EXAT or PXAT that miniredis
// accepts, and no other option) or a SETNX, its key exists on database 0,
// and miniredis would run it now (not queued in MULTI); ok false
// otherwise, having touched nothing.
func (n *Node) heldSetNX(p *server.Peer, conn int, name string, args []string) (r Reply, ok bool) {
	if n.noHeld || n.multi[conn] || n.selected || p.Resp3 || len(args) < 3 {
		return Reply{}, false
	}
	switch {
	case name == "SETNX" && len(args) == 3:
		if n.m.DB(0).Type(args[1]) == "" { // the clock step; no access time
			return Reply{}, false
		}
		n.held++
		return heldZero, true
	case name == "SET" && setNXOnly(args[3:]):
		if !n.m.DB(0).Exists(args[1]) { // the clock step and the access time
			return Reply{}, false
		}
		n.held++
		return heldNull, true
	}
	return Reply{}, false
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
