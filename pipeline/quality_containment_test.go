package pipeline

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/baseline"
	"github.com/neardup/neardup/containment"
	"github.com/neardup/neardup/gen"
	"github.com/neardup/neardup/gen/gentest"
	"github.com/neardup/neardup/minhash"
)

// TestQualityContainmentAgainstBaseline holds --measure containment to the exact
// containment join (neardup baseline --measure containment) on a generated corpus of
// planted partial copies: every removed document is contained in the document it was
// removed for at exactly the similarity reported, which is ≥ the threshold (precision
// 1.0); and every exact pair that shared an LSH bucket was decided by the rule: its
// smaller document removed, or its container itself removed. Pairs that shared no
// bucket are the banding's misses; their share per containment is logged beside the
// S-curve's prediction.
func TestQualityContainmentAgainstBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("a few thousand documents through the whole pipeline")
	}
	o := gen.Defaults()
	o.N, o.Seed, o.DupFraction, o.PartialRate = 3000, 21, 0.3, 0.7
	o.Output = gentest.Write(t, o)

	const threshold = 0.8
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.Threshold, cfg.Partitions, cfg.Measure = []string{o.Output}, t.TempDir(), threshold, 16, MeasureContainment
	require.NoError(t, cfg.Validate())
	out, st := dedup(t, cfg)
	require.Zero(t, st.Counts["unresolved_bucket_pairs"])

	bo := baseline.Defaults()
	bo.Input, bo.Threshold, bo.Shingle = []string{o.Output}, threshold, cfg.Shingle
	corpus, err := baseline.Load(context.Background(), bo)
	require.NoError(t, err)
	index := map[string]int{}
	for i, id := range corpus.IDs {
		index[id] = i
	}
	set := func(id string) []uint64 { return corpus.Sets[index[id]] }

	// Precision: each removal is an exact containment at or above the threshold.
	removed := parseRemoved(t, out["removed.jsonl"])
	require.Greater(t, len(removed), 200, "the corpus must have partial copies")
	for id, r := range removed {
		a, b := set(id), set(r.Cluster)
		c := containment.Of(a, b)
		require.GreaterOrEqual(t, c, threshold, "%s removed for %s", id, r.Cluster)
		require.Equal(t, c, r.Similarity, "%s: removed.jsonl carries the exact containment", id)
		require.True(t, containment.Contained(len(a), len(b), id, r.Cluster), "%s is not the smaller of its pair", id)
		_, gone := removed[r.Cluster]
		require.False(t, gone, "%s removed for %s, which is removed too", id, r.Cluster)
	}

	// Band keys of every document, as the pipeline computes them.
	signer, err := minhash.NewSigner(cfg.Scheme, cfg.Seed, cfg.NumPerm)
	require.NoError(t, err)
	scheme, err := ChooseContainment(cfg.Threshold, cfg.NumPerm)
	require.NoError(t, err)
	keys := make([]map[uint64]bool, len(corpus.IDs))
	for i := range corpus.IDs {
		sig := make([]uint64, cfg.NumPerm)
		signer.SignInto(sig, corpus.Sets[i])
		keys[i] = map[uint64]bool{}
		for _, k := range scheme.AppendKeys(nil, sig, len(corpus.Sets[i])) {
			keys[i][k] = true
		}
	}
	exact := corpus.ContainmentPairs(threshold, 0)
	type tally struct{ pairs, shared int }
	byBucket := map[float64]*tally{}
	var missed []string
	shared := 0
	for _, p := range exact {
		a, b := index[p.A], index[p.B]
		small, large := p.A, p.B
		if !containment.Contained(len(corpus.Sets[a]), len(corpus.Sets[b]), p.A, p.B) {
			small, large, a, b = p.B, p.A, b, a
		}
		bucket := math.Floor(p.Similarity*20) / 20
		if byBucket[bucket] == nil {
			byBucket[bucket] = &tally{}
		}
		byBucket[bucket].pairs++
		inBucket := len(corpus.Sets[a]) == 0
		for k := range keys[a] {
			if keys[b][k] {
				inBucket = true
				break
			}
		}
		if !inBucket {
			continue
		}
		byBucket[bucket].shared++
		shared++
		_, smallGone := removed[small]
		_, largeGone := removed[large]
		if !smallGone && !largeGone {
			missed = append(missed, fmt.Sprintf("%s in %s (%.3f)", small, large, p.Similarity))
		}
	}
	require.Greater(t, shared, 200)
	assert.Empty(t, missed, "exact pairs that shared a bucket but were left undecided")
	for _, b := range []float64{0.8, 0.85, 0.9, 0.95, 1} {
		if x := byBucket[b]; x != nil {
			t.Logf("containment [%.2f, %.2f): %d pairs, %d shared a bucket (%.3f; curve at the group's worst ratio ≥ %.3f)",
				b, b+0.05, x.pairs, x.shared, float64(x.shared)/float64(x.pairs), (&plan{containment: &scheme}).detection(b))
		}
	}
}
