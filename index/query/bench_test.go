package query

import (
	"context"
	"math/rand/v2"
	"testing"
)

// BenchmarkNear measures one single-document query against an index of 20,000
// documents in three segments, from a mix of near-duplicates and new texts. Larger
// indexes: bench/query.sh.
func BenchmarkNear(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	a := corpus(rng, "a", 16000, nil)
	c := corpus(rng, "b", 3000, a)
	d := corpus(rng, "c", 600, a)
	qs := corpus(rng, "q", 1000, a)
	dir := b.TempDir()
	m := build(b, dir, 32, a, c, d)
	e, err := Open(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	b.ReportMetric(float64(len(m.Segments)), "segments")
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := e.Near(qs[i%len(qs)].Text); err != nil {
			b.Fatal(err)
		}
	}
}
