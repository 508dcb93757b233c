package node

// Pub/sub: a node keeps no subscribers of its own (SUBSCRIBE is refused:
// a subscribed connection waits, which the engine models). The engine that
// runs the node hangs Publish on it; a PUBLISH, from a client or from a
// script, then goes to the engine, which hands the message to the
// connections waiting on its channel (sim/pubsub.go) and says how many
// there were: PUBLISH's reply. Without it, PUBLISH is miniredis's (no
// subscribers: 0). A PUBLISH queued in MULTI runs in miniredis at EXEC and
// reaches no one.

// publish runs PUBLISH through the engine's Publish, if the node has one
// and args are PUBLISH's: ok false leaves the command to miniredis (which
// words any arity error).
func (n *Node) publish(name string, args []string) (Reply, bool) {
	if n.Publish == nil || name != "PUBLISH" || len(args) != 3 {
		return Reply{}, false
	}
	return Reply{Kind: Int, Int: n.Publish(args[1], args[2])}, true
}
