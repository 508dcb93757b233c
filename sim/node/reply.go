package node

import "github.com/locksim/locksim/internal/resp"

// Reply is one Redis reply. Its type, its redis-cli rendering (String) and
// its RESP encoding and parsing are package internal/resp's, the one RESP
// codec: a node's reply, a real server's and a bubble connection's bytes
// read alike.
type Reply = resp.Reply

// ReplyKind is the RESP type of a reply.
type ReplyKind = resp.ReplyKind

// The reply kinds.
const (
	Nil    = resp.Nil
	Status = resp.Status
	Error  = resp.Error
	Int    = resp.Int
	Bulk   = resp.Bulk
	Array  = resp.Array
)
