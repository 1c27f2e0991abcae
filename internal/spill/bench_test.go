package spill

import (
	"testing"
)

// BenchmarkExtend is the featurizing pass's band entries: 40-byte items built in place,
// each in a pseudo-random one of 256 partitions. It runs on the goroutine that feeds the
// per-core pool, so its cost per item is what that pool waits for.
func BenchmarkExtend(b *testing.B) {
	w, err := NewWriter(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	item := make([]byte, 40)
	x := uint64(1)
	b.SetBytes(int64(len(item)))
	for b.Loop() {
		x = x*6364136223846793005 + 1442695040888963407
		if err := w.Extend(int(x>>56), func(buf []byte) []byte { return append(buf, item...) }); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		b.Fatal(err)
	}
}
