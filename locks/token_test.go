package locks

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPutHexIsSprintf: tokens must stay byte for byte what fmt made of them
// (digests and golden files hold them).
func TestPutHexIsSprintf(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 1000 {
		v := rng.Uint64() >> (i % 64)
		var b16 [16]byte
		putHex(b16[:], v)
		if got, want := string(b16[:]), fmt.Sprintf("%016x", v); got != want {
			t.Fatalf("putHex16(%d) = %s, want %s", v, got, want)
		}
		w := uint64(uint32(v))
		var b8 [8]byte
		putHex(b8[:], w)
		if got, want := string(b8[:]), fmt.Sprintf("%08x", w); got != want {
			t.Fatalf("putHex8(%d) = %s, want %s", w, got, want)
		}
	}
}
