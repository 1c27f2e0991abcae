package pipeline

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/baseline"
	"github.com/neardup/neardup/eval"
	"github.com/neardup/neardup/gen"
	"github.com/neardup/neardup/gen/gentest"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
)

// TestQualityAgainstBaseline holds dedup to the exact all-pairs join (neardup baseline)
// on a generated corpus of a few thousand documents: precision 1.0 (every pair dedup
// puts in one cluster is in one exact component) and no exact pair that shared an LSH
// bucket left in different clusters. Pairs that shared no bucket are LSH's misses, which
// the S-curve predicts and bench/quality.sh measures.
func TestQualityAgainstBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("a few thousand documents through the whole pipeline")
	}
	o := gen.Defaults()
	o.N, o.Seed, o.DupFraction = 3000, 21, 0.3
	o.Output = gentest.Write(t, o)

	for _, threshold := range []float64{0.7, 0.9} {
		cfg := DefaultConfig()
		cfg.Inputs, cfg.Output, cfg.Threshold, cfg.Partitions = []string{o.Output}, t.TempDir(), threshold, 16
		require.NoError(t, cfg.Validate())
		out, st := dedup(t, cfg)

		bo := baseline.Defaults()
		bo.Input, bo.Threshold, bo.Shingle = []string{o.Output}, threshold, cfg.Shingle
		corpus, err := baseline.Load(context.Background(), bo)
		require.NoError(t, err)
		exact := corpus.Pairs(threshold, 0)
		require.Greater(t, len(exact), 100, "the corpus must have duplicates")

		result := eval.Clusters{}
		labels := clusterLabels(t, out[clustersFile])
		byLabel := map[string][]string{}
		for id, l := range labels {
			byLabel[l] = append(byLabel[l], id)
		}
		for _, ms := range byLabel {
			result = append(result, ms)
		}
		var ps [][2]string
		for _, p := range exact {
			ps = append(ps, [2]string{p.A, p.B})
		}
		counts, err := eval.Compare(eval.Components(ps), result, int64(len(corpus.IDs)))
		require.NoError(t, err)
		require.Equal(t, 1.0, counts.Precision(), "threshold %v", threshold)

		// Band keys of every document, as the pipeline computes them.
		signer, err := minhash.NewSigner(cfg.Scheme, cfg.Seed, cfg.NumPerm)
		require.NoError(t, err)
		bands, rows, err := cfg.bandsRows()
		require.NoError(t, err)
		keys := map[string][]uint64{}
		for i, id := range corpus.IDs {
			sig := make([]uint64, cfg.NumPerm)
			signer.SignInto(sig, corpus.Sets[i])
			for b := 0; b < bands; b++ {
				keys[id] = append(keys[id], lsh.BandKey(sig, b, rows))
			}
		}
		shared, missed := 0, []baseline.IDPair{}
		for _, p := range exact {
			ka, kb := keys[p.A], keys[p.B]
			inBucket := false
			for b := range ka {
				inBucket = inBucket || ka[b] == kb[b]
			}
			if !inBucket {
				continue
			}
			shared++
			if labels[p.A] == "" || labels[p.A] != labels[p.B] {
				missed = append(missed, p)
			}
		}
		require.Greater(t, shared, 100)
		require.Empty(t, missed, "threshold %v: exact pairs that shared a bucket but are not in one cluster", threshold)
		require.Zero(t, st.Counts["unresolved_bucket_pairs"])
	}
}
