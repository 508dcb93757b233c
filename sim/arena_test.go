package sim

import "testing"

// Runs on released memory are bit for bit runs on new memory, and a result
// that was not released keeps its history whatever runs come after it.
func TestReleasedMemoryIsReusedSafely(t *testing.T) {
	kept, err := Run(faultyConfig(100))
	if err != nil {
		t.Fatal(err)
	}
	keptDigest := kept.History.Digest()
	for s := uint64(0); s < 30; s++ {
		fresh := digestOnNewNodes(t, faultyConfig(s))
		res, err := Run(faultyConfig(s))
		if err != nil {
			t.Fatal(err)
		}
		if d := res.History.Digest(); d != fresh {
			t.Fatalf("seed %d: on released memory %s, on new memory %s", s, d, fresh)
		}
		res.Release()
		res.Release() // a second release gives nothing back twice
		if res.History.Events != nil {
			t.Fatalf("seed %d: a released result still shows %d events", s, len(res.History.Events))
		}
	}
	if d := kept.History.Digest(); d != keptDigest {
		t.Fatalf("a result never released changed under later runs: %s, was %s", d, keptDigest)
	}
}
