package node

import "time"

// KeyType is a watched key's Redis type. The zero value is a string, which
// is also what an absent key reads as.
type KeyType uint8

const (
	KeyString KeyType = iota
	KeyHash
	KeyList
	KeySet
	KeyZSet
	KeyStream
	KeyOther // a type locksim does not draw (HyperLogLog reads as a string in Redis)
)

var keyTypeNames = [...]string{"string", "hash", "list", "set", "zset", "stream", "other"}

func (t KeyType) String() string {
	if int(t) < len(keyTypeNames) {
		return keyTypeNames[t]
	}
	return "other"
}

// KeyState is a watched key on a node (or a replica) right after an event
// there: a command ran, a replica applied an entry, a restart reloaded the
// data, a failover promoted a replica.
//
// Value is a string's value; a key of another type is drawn canonically
// (Type says which): a hash as {field: value, …} in field order, a set as
// {a, b} in member order, a sorted set as {member: score, …} in score then
// member order, a list as [a, b] in list order.
//
// Fresh says the event began a new version of the key on its lane. A version
// is the key as one writer left it; it belongs to the process whose command
// wrote it (for a replica, the process whose command on the primary wrote
// the entry). An event begins one when the key exists after it and, just
// before it, was absent (or had expired), had another type or content, or
// was last written by another process and the event changed its TTL (the
// same content written again, or another process's expire). A restart's
// reload or a failover's promotion begins one when the key it leaves
// differs from the version before. The same content written again with the
// same TTL to the nanosecond changes nothing anyone can see, and is no new
// version.
type KeyState struct {
	Exists bool
	Fresh  bool
	Type   KeyType
	Value  string
	TTL    time.Duration // -1: no TTL
}
