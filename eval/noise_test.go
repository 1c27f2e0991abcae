package eval

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/baseline"
	"github.com/neardup/neardup/jaccard"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
)

var testSigning = Signing{Scheme: minhash.Affine32, NumPerm: 128, Seed: 1, Bands: 15, Rows: 8}

// planted returns two sorted sets sharing `shared` random hashes, each with `only`
// hashes of its own: Jaccard shared/(shared+2·only).
func planted(r *rand.Rand, shared, only int) (a, b []uint64) {
	for range shared {
		h := r.Uint64()
		a, b = append(a, h), append(b, h)
	}
	for range only {
		a, b = append(a, r.Uint64()), append(b, r.Uint64())
	}
	slices.Sort(a)
	slices.Sort(b)
	return a, b
}

// noiseOf buckets pairs from 0.7 in 0.05 steps and adds the band noise over 100 seeds.
func noiseOf(t *testing.T, pairs []baseline.IDPair, sets map[string][]uint64, result Clusters) []Bucket {
	t.Helper()
	bs, err := RecallBySimilarity(pairs, result, 0.7, 0.05, testSigning.Bands, testSigning.Rows)
	require.NoError(t, err)
	require.NoError(t, AddBandNoise(bs, pairs, sets, result, testSigning, 100, 2))
	return bs
}

// A pair of texts copied 20 times each is 400 document pairs but one trial of the
// permutations: on every seed all 400 share a bucket or none does. The band must say so
// (5th percentile 0, 95th 1), where binomial noise around the S-curve for 400
// independent pairs would be ±0.04 and call a seed that misses them a deficit.
func TestBandNoiseCopiesFailTogether(t *testing.T) {
	x, y := planted(rand.New(rand.NewPCG(1, 2)), 140, 30) // J = 0.7
	j := jaccard.Similarity(x, y)
	require.InDelta(t, 0.7, j, 1e-12)
	sets := map[string][]uint64{}
	var pairs []baseline.IDPair
	for i := range 20 {
		sets[fmt.Sprintf("x%02d", i)], sets[fmt.Sprintf("y%02d", i)] = x, y
	}
	for i := range 20 {
		for k := range 20 {
			pairs = append(pairs, baseline.IDPair{A: fmt.Sprintf("x%02d", i), B: fmt.Sprintf("y%02d", k), Similarity: j})
		}
	}
	bs := noiseOf(t, pairs, sets, nil)
	b := bs[0]
	require.Equal(t, int64(400), b.Pairs)
	require.NotNil(t, b.Noise)
	assert.Equal(t, 100, b.Noise.Seeds)
	assert.Equal(t, 0.0, b.Noise.P5)
	assert.Equal(t, 1.0, b.Noise.P95)
	p := lsh.Detection(j, testSigning.Bands, testSigning.Rows)
	assert.InDelta(t, p, b.Noise.Mean, 0.15, "share of seeds on which the one trial succeeds")
	assert.Contains(t, []int64{0, 400}, *b.Banded, "all or none under the run's seed")
	assert.InDelta(t, math.Sqrt(b.Noise.Mean*(1-b.Noise.Mean)), b.Noise.SD, 0.01, "a single Bernoulli trial's spread")
	if *b.Banded == 0 {
		assert.Equal(t, 0, b.Noise.Below)
	} else {
		assert.Equal(t, int(math.Round((1-b.Noise.Mean)*100)), b.Noise.Below, "the seeds that missed")
	}
	binomial := 2 * 1.645 * math.Sqrt(p*(1-p)/400)
	assert.Less(t, binomial, 0.1, "what treating the copies as independent pairs would claim")
}

// Independent pairs (no shared documents, unrelated shingles) are binomial trials: the
// band is narrow and centred on the S-curve, so the MinHash and banding the band uses
// agree with the curve the report prints.
func TestBandNoiseIndependentPairsFollowTheSCurve(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sets := map[string][]uint64{}
	var pairs []baseline.IDPair
	for i := range 300 {
		a, b := planted(r, 140, 30)
		ia, ib := fmt.Sprintf("a%03d", i), fmt.Sprintf("b%03d", i)
		sets[ia], sets[ib] = a, b
		pairs = append(pairs, baseline.IDPair{A: ia, B: ib, Similarity: jaccard.Similarity(a, b)})
	}
	bs := noiseOf(t, pairs, sets, nil)
	b := bs[0]
	require.Equal(t, int64(300), b.Pairs)
	p := *b.Predicted
	sd := math.Sqrt(p * (1 - p) / 300)
	assert.InDelta(t, p, b.Noise.Mean, 3*sd/math.Sqrt(100)+0.01, "mean over seeds vs the S-curve")
	assert.InDelta(t, 2*1.645*sd, b.Noise.P95-b.Noise.P5, 0.04, "a binomial band: 90% ≈ ±1.645 sd")
	assert.GreaterOrEqual(t, float64(*b.Banded)/300, b.Noise.P5-3*sd)
}

// Banded counts pairs sharing an LSH bucket under the run's seed; BandedLost those of
// them the result did not co-cluster: a candidate stage that drops a pair shows here.
func TestBandNoiseCountsLostPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	sets := map[string][]uint64{}
	var pairs []baseline.IDPair
	for _, ids := range [][2]string{{"p", "q"}, {"u", "v"}} {
		a, b := planted(r, 400, 5) // J ≈ 0.976: shares a bucket on any seed
		sets[ids[0]], sets[ids[1]] = a, b
		pairs = append(pairs, baseline.IDPair{A: ids[0], B: ids[1], Similarity: jaccard.Similarity(a, b)})
	}
	sets["w"] = sets["u"]
	pairs = append(pairs, baseline.IDPair{A: "u", B: "w", Similarity: 1})
	result := Clusters{{"p"}, {"q"}, {"u", "v", "w"}}
	bs, err := RecallBySimilarity(pairs, result, 0.7, 0.05, 15, 8)
	require.NoError(t, err)
	require.NoError(t, AddBandNoise(bs, pairs, sets, result, testSigning, 0, 1))
	last := bs[len(bs)-1]
	assert.Equal(t, int64(3), last.Pairs)
	assert.Equal(t, int64(3), *last.Banded)
	assert.Equal(t, int64(1), *last.BandedLost, "p–q shared a bucket and was not co-clustered")
	assert.Nil(t, last.Noise, "no seeds asked for")

	delete(sets, "v")
	err = AddBandNoise(bs, pairs, sets, result, testSigning, 0, 1)
	assert.ErrorContains(t, err, `"v" is not in the input`)
}

// The run's --max-shingles cap applies: sets that agree only beyond their capped prefix
// stop sharing a bucket.
func TestBandNoiseCapsAsTheRunDid(t *testing.T) {
	a, b := []uint64{1, 2, 3}, []uint64{4, 5, 6}
	for h := range uint64(100) {
		a, b = append(a, 1000+h), append(b, 1000+h)
	}
	sets := map[string][]uint64{"a": a, "b": b}
	pairs := []baseline.IDPair{{A: "a", B: "b", Similarity: jaccard.Similarity(a, b)}}
	sg := testSigning
	for _, c := range []struct {
		cap    int
		banded int64
	}{{0, 1}, {3, 0}} {
		sg.MaxShingles = c.cap
		bs, err := RecallBySimilarity(pairs, nil, 0.7, 0.05, sg.Bands, sg.Rows)
		require.NoError(t, err)
		require.NoError(t, AddBandNoise(bs, pairs, sets, nil, sg, 0, 1))
		var banded int64
		for _, b := range bs {
			banded += *b.Banded
		}
		assert.Equal(t, c.banded, banded, "--max-shingles %d", c.cap)
	}
}

// Evaluate with -noise-seeds re-signs the corpus as stats.json says and fills every
// bucket; without the corpus, or without the signing parameters, it says what is missing.
func TestEvaluateNoiseSeeds(t *testing.T) {
	f := newFixture(t, 1500)
	ctx := context.Background()
	c, err := baseline.Load(ctx, baseline.Options{Input: []string{f.corpus}, IDField: "id", TextField: "text",
		Threshold: 0.8, Shingle: baseline.Defaults().Shingle, Hash: baseline.Defaults().Hash})
	require.NoError(t, err)
	var edges [][2]string
	for _, p := range c.Pairs(0.8, 0) {
		edges = append(edges, [2]string{p.A, p.B})
	}
	f.writeResult(t, Components(edges), fmt.Sprintf(`{"parameters": {"num_perm": 128, "b": 15, "r": 8,
		"threshold": 0.8, "ngram": 5, "shingle": "word", "strip_punct": false, "hash": "xxhash",
		"scheme": "affine32", "seed": 1, "max_shingles": 100000}, "counts": {"documents_read": %d}}`, f.n))
	o := Defaults()
	o.Result, o.Input, o.NoiseSeeds = f.dir, []string{f.corpus}, 20
	r, err := Evaluate(ctx, o)
	require.NoError(t, err)
	require.Len(t, r.Buckets, 6)
	for _, b := range r.Buckets {
		require.NotNil(t, b.Banded, "bucket %v", b.Lo)
		assert.LessOrEqual(t, *b.Banded, b.Pairs)
		if b.Lo >= 0.8 {
			assert.Zero(t, *b.BandedLost, "bucket %v: every pair ≥ threshold is in a component", b.Lo)
		}
		if b.Pairs == 0 {
			continue
		}
		require.NotNil(t, b.Noise)
		assert.Equal(t, 20, b.Noise.Seeds)
		assert.True(t, b.Noise.P5 <= b.Noise.Mean && b.Noise.Mean <= b.Noise.P95, "%+v", *b.Noise)
		assert.InDelta(t, *b.Predicted, b.Noise.Mean, 0.05, "bucket %v", b.Lo)
	}
	var text bytes.Buffer
	require.NoError(t, r.WriteText(&text))
	assert.Contains(t, text.String(), "shared a bucket")
	assert.Contains(t, text.String(), "of 20 lower)")

	o.Input = nil
	o.Exact = filepath.Join(t.TempDir(), "none.jsonl")
	_, err = Evaluate(ctx, o)
	assert.ErrorContains(t, err, "-noise-seeds needs the corpus")

	f.writeResult(t, Components(edges), statsJSON(f.n)) // no scheme or seed
	o.Input, o.Exact = []string{f.corpus}, ""
	_, err = Evaluate(ctx, o)
	assert.ErrorContains(t, err, "scheme, num_perm, seed")
}
