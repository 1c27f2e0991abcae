package connectedcomponents

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// Benchmarks: run with -benchtime=1x for the Prism ones (each iteration is a
// whole pipeline). Prism's cost is per shuffled element: a round shuffles
// about 4 elements per edge (two views, then Large-Star's output twice).

func benchLabel(b *testing.B, edges []edge, opts Options) {
	b.ReportMetric(float64(len(edges)), "edges")
	for b.Loop() {
		p, s := beam.NewPipelineWithRoot()
		_, unconverged := Label(s, toKVs(s, edges), opts)
		passert.Equals(s, unconverged, int64(0))
		if err := ptest.Run(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLabelRandom: 20,000 random edges, default rounds.
func BenchmarkLabelRandom(b *testing.B) {
	benchLabel(b, randomGraph(rand.New(rand.NewPCG(1, 1)), "n", 20_000, 20_000), Options{})
}

// BenchmarkLabelStar: one star with 100,000 leaves, centre in the middle of
// the id order; it converges in 2 rounds.
func BenchmarkLabelStar(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	benchLabel(b, star(rng, "s50000", shuffledIDs(rng, "s", 100_000)), Options{Rounds: 2})
}

// BenchmarkRoundInMemory is one round of the per-node functions on 20,000
// random edges without Beam: the algorithm's own cost, for comparison.
func BenchmarkRoundInMemory(b *testing.B) {
	edges := randomGraph(rand.New(rand.NewPCG(1, 1)), "n", 20_000, 20_000)
	for b.Loop() {
		memRound(edges)
	}
}
