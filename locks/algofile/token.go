package algofile

import (
	"encoding/base64"
	"fmt"
	"strconv"

	"github.com/locksim/locksim/locks"
	"github.com/locksim/locksim/sim"
	"go.yaml.in/yaml/v3"
)

// An algorithm file's token: the random part's shape, the text around it,
// and how long one draw lives. The default (no token: field, or "random")
// is the built-ins' 20 bytes in hex drawn fresh each try, draw for draw, so
// files written before the other shapes keep their digests.

// tokenShape is how the random part is drawn and written.
type tokenShape uint8

const (
	shapeBuiltin   tokenShape = iota // locks.RandomToken: 20 bytes as 40 hex digits
	shapeHex                         // n bytes as 2n hex digits (redis-py's uuid1().hex is 16)
	shapeBase64URL                   // n bytes, unpadded base64url (bsm/redislock: 16 bytes, 22 characters)
	shapeBase64                      // n bytes, padded standard base64 (redsync: 16 bytes, 24 characters)
	shapeUUID                        // a version 4 UUID (Redisson's client id, node-redlock's value)
)

// Token scopes beyond TokenTry and TokenAcquire: a file may keep one draw
// for its process incarnation (Redisson's client UUID, a lock object built
// once and acquired again).
const tokenProcess = "process"

// maxTokenBytes bounds hex: and base64url:.
const maxTokenBytes = 64

type tokenSpec struct {
	shape tokenShape
	n     int
	// format is the token's text; nil: the random part alone. A format
	// without {token} (the file's old scalar template, "{expire_at+1}")
	// draws nothing.
	format *template
	scope  string // "": the scenario's token_scope, else try
}

// tokenFile reads token: random, uuid, a template, or a mapping
// {hex: N | base64url: N | base64: N | uuid: true, format: T, scope: S}.
func (v *validator) tokenFile(n *yaml.Node) tokenSpec {
	var spec tokenSpec
	switch n.Kind {
	case 0:
		return spec
	case yaml.ScalarNode:
		switch n.Value {
		case "", "random":
			return spec
		case "uuid":
			spec.shape = shapeUUID
			return spec
		}
		t := v.template("token", n.Value)
		if t.uses(isToken) {
			v.fail("token", "cannot use {token}: it defines it (a mapping's format: may, for its random part)")
		}
		spec.format = &t
		return spec
	case yaml.MappingNode:
	default:
		v.fail("token", "want random, uuid, a template, or a mapping of hex, base64url, base64, uuid, format and scope")
		return spec
	}
	shapes := 0
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i].Value, n.Content[i+1]
		f := "token." + key
		if val.Kind != yaml.ScalarNode || val.Tag == "!!null" {
			v.fail(f, "want a single value")
			return spec
		}
		switch key {
		case "hex", "base64url", "base64":
			shapes++
			spec.shape = map[string]tokenShape{"hex": shapeHex, "base64url": shapeBase64URL, "base64": shapeBase64}[key]
			b, err := strconv.Atoi(val.Value)
			if err != nil || b < 1 || b > maxTokenBytes {
				v.fail(f, "%q: want a count of random bytes from 1 to %d", val.Value, maxTokenBytes)
			}
			spec.n = b
		case "uuid":
			shapes++
			spec.shape = shapeUUID
			if val.Value != "true" {
				v.fail(f, "%q: want true (a version 4 UUID)", val.Value)
			}
		case "format":
			t := v.template(f, val.Value)
			spec.format = &t
		case "scope":
			switch val.Value {
			case locks.TokenTry, locks.TokenAcquire, tokenProcess:
				spec.scope = val.Value
			default:
				v.fail(f, "%q: want try (a fresh draw each try), acquire (one per acquire call) or process (one per process incarnation)", val.Value)
			}
		default:
			v.fail(f, "unknown field (valid: hex, base64url, base64, uuid, format, scope)")
		}
	}
	switch {
	case shapes > 1:
		v.fail("token", "give one shape: hex, base64url, base64 or uuid")
	case spec.format != nil && !spec.format.uses(isToken) && (shapes > 0 || spec.scope != ""):
		v.fail("token.format", "does not use {token}, so the random part is never drawn: add {token} or drop the shape and scope")
	}
	return spec
}

// draw is one random part from the process's source.
func (s *tokenSpec) draw(p sim.Proc) string {
	r := p.Rand()
	switch s.shape {
	case shapeHex:
		b := randomBytes(r.Uint64, s.n)
		var out []byte
		for _, c := range b {
			out = append(out, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		}
		return string(out)
	case shapeBase64URL:
		return base64.RawURLEncoding.EncodeToString(randomBytes(r.Uint64, s.n))
	case shapeBase64:
		return base64.StdEncoding.EncodeToString(randomBytes(r.Uint64, s.n))
	case shapeUUID:
		b := randomBytes(r.Uint64, 16)
		b[6] = b[6]&0x0f | 0x40 // version 4
		b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
		return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	}
	return locks.RandomToken(p)
}

// randomBytes is n bytes, eight from each draw.
func randomBytes(next func() uint64, n int) []byte {
	b := make([]byte, 0, n+8)
	for len(b) < n {
		u := next()
		for i := 0; i < 8; i++ {
			b = append(b, byte(u>>(8*i)))
		}
	}
	return b[:n]
}

// pidOf is {pid}: a thread or process id, drawn from the process's source
// at first use and kept for the incarnation (Redisson's threadId in
// "uuid:threadId"). Drawn only when a file uses it.
func (l *fileLocker) pidOf(p sim.Proc) string {
	if l.pid == "" {
		l.pid = strconv.Itoa(1 + p.Rand().IntN(1<<16-1))
	}
	return l.pid
}
