package node

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

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
// member order, a list as [a, b] in list order, a stream as
// [id {field: value, …}, …] in ID order; KeyOther as "". DrawHash and its
// siblings below write them, and say how an element is quoted.
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

// ParseKeyType reads a type as Redis's TYPE (or miniredis) names it; exists
// is false for "none" and "". A type locksim does not draw (miniredis's
// "hll", a module's type) is KeyOther.
func ParseKeyType(name string) (t KeyType, exists bool) {
	switch name {
	case "", "none":
		return KeyString, false
	case "string":
		return KeyString, true
	case "hash":
		return KeyHash, true
	case "list":
		return KeyList, true
	case "set":
		return KeySet, true
	case "zset":
		return KeyZSet, true
	case "stream":
		return KeyStream, true
	}
	return KeyOther, true
}

// The canonical drawings of KeyState.Value for a key that is not a string.
// Both backends draw through them, so that the same content reads the same
// from miniredis and from a real server. An element is drawn as it is
// unless that could be misread: an empty one, one holding ", " or ": " (the
// separators), one starting with a double quote, or one with a control byte
// or invalid UTF-8 is drawn Go-quoted ("a, b"). Two different contents of
// one type therefore never draw the same.

// DrawHash draws a hash from its fields and values, pairs[2i] a field and
// pairs[2i+1] its value, in any order: {field: value, …} by field.
func DrawHash(pairs []string) string {
	idx := pairIndex(len(pairs) / 2)
	sort.Slice(idx, func(a, b int) bool { return pairs[2*idx[a]] < pairs[2*idx[b]] })
	var b strings.Builder
	b.WriteByte('{')
	for k, i := range idx {
		if k > 0 {
			b.WriteString(", ")
		}
		drawElem(&b, pairs[2*i])
		b.WriteString(": ")
		drawElem(&b, pairs[2*i+1])
	}
	b.WriteByte('}')
	return b.String()
}

// DrawSet draws a set from its members in any order: {a, b} by member.
func DrawSet(members []string) string {
	sorted := slices.Clone(members)
	slices.Sort(sorted)
	return drawSeq('{', sorted, '}')
}

// DrawList draws a list in its order: [a, b].
func DrawList(items []string) string { return drawSeq('[', items, ']') }

// DrawZSet draws a sorted set from its members and their scores, in any
// order: {member: score, …} by score, then member. A score is drawn as its
// shortest decimal (1, 1.5, 1e+21; inf and -inf as Redis writes them).
func DrawZSet(members []string, scores []float64) string {
	idx := pairIndex(len(members))
	sort.Slice(idx, func(a, b int) bool {
		x, y := idx[a], idx[b]
		if scores[x] != scores[y] {
			return scores[x] < scores[y]
		}
		return members[x] < members[y]
	})
	var b strings.Builder
	b.WriteByte('{')
	for k, i := range idx {
		if k > 0 {
			b.WriteString(", ")
		}
		drawElem(&b, members[i])
		b.WriteString(": ")
		b.WriteString(FormatScore(scores[i]))
	}
	b.WriteByte('}')
	return b.String()
}

// FormatScore is a sorted set's score as DrawZSet draws it.
func FormatScore(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// DrawStream draws a stream from its entries in ID order, each an ID and
// its field-value pairs in the order they were added: [1-0 {f: v}, 2-0 {…}].
func DrawStream(ids []string, pairs [][]string) string {
	var b strings.Builder
	b.WriteByte('[')
	for k, id := range ids {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(id)
		b.WriteString(" {")
		for j := 0; j+1 < len(pairs[k]); j += 2 {
			if j > 0 {
				b.WriteString(", ")
			}
			drawElem(&b, pairs[k][j])
			b.WriteString(": ")
			drawElem(&b, pairs[k][j+1])
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.String()
}

func pairIndex(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

func drawSeq(open byte, elems []string, close byte) string {
	var b strings.Builder
	b.WriteByte(open)
	for k, e := range elems {
		if k > 0 {
			b.WriteString(", ")
		}
		drawElem(&b, e)
	}
	b.WriteByte(close)
	return b.String()
}

func drawElem(b *strings.Builder, s string) {
	if needsQuote(s) {
		b.WriteString(strconv.Quote(s))
		return
	}
	b.WriteString(s)
}

func needsQuote(s string) bool {
	if s == "" || s[0] == '"' || strings.Contains(s, ", ") || strings.Contains(s, ": ") || !utf8.ValidString(s) {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}
