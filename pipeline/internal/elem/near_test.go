package elem

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// However the pairs are split into batches and in whatever order the batches merge,
// similarities.json gets the same histograms and the same pairs nearest the threshold.
func TestNearBatchIndependentOfPartitioning(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var pairs []Edge
	for i := range 500 {
		// Coarse similarities, so ties are common and the id order must decide.
		pairs = append(pairs, Edge{U: fmt.Sprintf("d%03d", i%37), V: fmt.Sprintf("e%03d", i), Sim: float64(rng.IntN(21)) / 20})
	}
	build := func(parts int) NearBatch {
		batches := make([]NearBatch, parts)
		for i := range batches {
			batches[i] = NewNearBatch()
		}
		for _, e := range pairs {
			batches[rng.IntN(parts)].Add(e, e.Sim >= 0.8)
		}
		rng.Shuffle(len(batches), func(i, j int) { batches[i], batches[j] = batches[j], batches[i] })
		all := NewNearBatch()
		for _, b := range batches {
			b.Trim()
			all.Merge(b)
			all.Trim()
		}
		return all
	}
	one := build(1)
	require.Len(t, one.Lowest, NearPairs)
	require.Len(t, one.Highest, NearPairs)
	// Against a plain sort of all the pairs.
	var verified, rejected []Edge
	for _, e := range pairs {
		if e.Sim >= 0.8 {
			verified = append(verified, e)
		} else {
			rejected = append(rejected, e)
		}
	}
	ids := func(a, b Edge) int { return cmp.Or(cmp.Compare(a.U, b.U), cmp.Compare(a.V, b.V)) }
	slices.SortFunc(verified, func(a, b Edge) int { return cmp.Or(cmp.Compare(a.Sim, b.Sim), ids(a, b)) })
	slices.SortFunc(rejected, func(a, b Edge) int { return cmp.Or(cmp.Compare(b.Sim, a.Sim), ids(a, b)) })
	assert.Equal(t, verified[:NearPairs], one.Lowest)
	assert.Equal(t, rejected[:NearPairs], one.Highest)
	var total int64
	for i := range one.Verified {
		total += one.Verified[i] + one.False[i]
	}
	assert.Equal(t, int64(len(pairs)), total)
	for _, parts := range []int{2, 7, 64} {
		assert.Equal(t, one, build(parts), "%d batches", parts)
	}
}

func TestSimilarityBin(t *testing.T) {
	assert.Equal(t, 0, similarityBin(0))
	assert.Equal(t, 40, similarityBin(0.8))
	assert.Equal(t, 40, similarityBin(0.7999999999999999), "a rounding error below a boundary stays in its bin")
	assert.Equal(t, SimilarityBins-1, similarityBin(1))
}

// A pair compared twice (a small bucket in one band, a large bucket in another) is
// listed once among the pairs nearest the threshold, even from different batches.
func TestNearPairsListedOnce(t *testing.T) {
	a, b := NewNearBatch(), NewNearBatch()
	for _, n := range []*NearBatch{&a, &b} {
		n.Add(Edge{U: "x", V: "y", Sim: 0.81}, true)
		n.Add(Edge{U: "x", V: "z", Sim: 0.79}, false)
	}
	a.Add(Edge{U: "p", V: "q", Sim: 0.9}, true)
	a.Trim()
	b.Trim()
	a.Merge(b)
	a.Trim()
	assert.Equal(t, []Edge{{U: "x", V: "y", Sim: 0.81}, {U: "p", V: "q", Sim: 0.9}}, a.Lowest)
	assert.Equal(t, []Edge{{U: "x", V: "z", Sim: 0.79}}, a.Highest)
}
