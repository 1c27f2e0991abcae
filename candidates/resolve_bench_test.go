package candidates

import "testing"

// BenchmarkResolveFamilies resolves a bucket of 2,000 sets in 40 families, with a
// similarity that costs nothing, so that what is measured is Resolve's own bookkeeping.
func BenchmarkResolveFamilies(b *testing.B) {
	const k, families = 2000, 40
	sim := func(i, j int) float64 {
		if i%families == j%families {
			return 0.9
		}
		return 0.1
	}
	for b.Loop() {
		Resolve(k, 0.8, 1<<40, sim)
	}
}
