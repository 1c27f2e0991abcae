package pipeline

import (
	"slices"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/transforms/minhash"
)

// TestClusterTransform runs the Cluster transform alone on hand-made verified edges, in
// both modes: a chain a-b-c and a pair d-e become two clusters named by their smallest
// ids, and under keep=longest the longest member is kept.
func TestClusterTransform(t *testing.T) {
	edges := []Edge{
		{U: "b", V: "c", Sim: 0.9, ULen: 10, VLen: 30},
		{U: "a", V: "b", Sim: 0.8, ULen: 20, VLen: 10},
		{U: "d", V: "e", Sim: 1, ULen: 5, VLen: 5},
	}
	for _, tc := range []struct {
		cc, keep string
		lines    []string
	}{
		{CCLocal, KeepSmallestID, []string{
			`{"cluster":"a","size":3,"kept":"a","members":["a","b","c"]}`,
			`{"cluster":"d","size":2,"kept":"d","members":["d","e"]}`}},
		{CCDistributed, KeepLongest, []string{
			`{"cluster":"a","size":3,"kept":"c","members":["a","b","c"]}`,
			`{"cluster":"d","size":2,"kept":"d","members":["d","e"]}`}},
	} {
		t.Run(tc.cc+"/"+tc.keep, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.CC, cfg.Keep, cfg.Partitions = tc.cc, tc.keep, 4
			p, s := beam.NewPipelineWithRoot()
			in := beam.ParDo(s, singleEdge, beam.CreateList(s, edges))
			_, lines := Cluster(s, in, &cfg)
			passert.Equals(s, beam.ParDo(s, lineTexts, lines), toAny(tc.lines)...)
			require.NoError(t, ptest.Run(p))
		})
	}
}

func init() {
	register.Function2x0(singleEdge)
	register.Function2x0(singleHalf)
	register.Function2x0(lineTexts)
}

func lineTexts(b lineBatch, emit func(string)) {
	for _, l := range b.Items {
		emit(l.Line)
	}
}

// singleEdge and singleHalf put one item in a batch under key 0, as the pipeline's stages
// emit them.
func singleEdge(e Edge, emit func(int, edgeBatch)) { emit(0, edgeBatch{[]Edge{e}}) }
func singleHalf(h Half, emit func(int, halfBatch)) { emit(0, halfBatch{Items: []Half{h}}) }

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// TestCheckPairsVerifyModes feeds the verification step the seed's D1/D2 halves: the
// exact Jaccard 2/3 is below 0.8, so under --verify exact the pair is a false candidate,
// while --verify none takes every candidate.
func TestCheckPairsVerifyModes(t *testing.T) {
	sum := minhash.XXHash.Sum64
	d1 := []uint64{sum([]byte("blue green")), sum([]byte("red blue"))}
	d2 := append([]uint64{sum([]byte("green yellow"))}, d1...)
	slices.Sort(d1)
	slices.Sort(d2)
	halves := []Half{
		{U: "D1", V: "D2", Node: "D1", Hashes: d1, Length: 14},
		{U: "D1", V: "D2", Node: "D2", Hashes: d2, Length: 21},
	}
	for mode, want := range map[string]int{VerifyExact: 0, VerifyNone: 1} {
		t.Run(mode, func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			in := beam.ParDo(s, singleHalf, beam.CreateList(s, halves))
			cfg := DefaultConfig()
			cfg.Verify = mode
			out, near := beam.ParDo2(s, &checkPairsFn{Scheme: string(cfg.Scheme), Seed: cfg.Seed, NumPerm: cfg.NumPerm, Mode: mode,
				Threshold: 0.8, Floor: cfg.estimateFloor()}, gather(s, appendHalves, in))
			passert.Count(s, out, "verified batches", want)
			if mode == VerifyExact {
				passert.Equals(s, beam.ParDo(s, nearSummary, near), "false D1 D2 0.6667 bin 33")
			}
			require.NoError(t, ptest.Run(p))
		})
	}
}

// TestExactVerificationIgnoresTheEstimate gives the verification step a floor no estimate
// reaches: a pair whose exact Jaccard (9/10) passes the threshold is verified all the same,
// and counted as one the estimate would have filtered.
func TestExactVerificationIgnoresTheEstimate(t *testing.T) {
	var a []uint64
	for i := range 10 {
		a = append(a, minhash.XXHash.Sum64([]byte{byte(i)}))
	}
	slices.Sort(a)
	b := slices.Delete(slices.Clone(a), 4, 5)
	halves := []Half{
		{U: "A", V: "B", Node: "A", Hashes: a, Length: 10},
		{U: "A", V: "B", Node: "B", Hashes: b, Length: 9},
	}
	p, s := beam.NewPipelineWithRoot()
	in := beam.ParDo(s, singleHalf, beam.CreateList(s, halves))
	cfg := DefaultConfig()
	out, _ := beam.ParDo2(s, &checkPairsFn{Scheme: string(cfg.Scheme), Seed: cfg.Seed, NumPerm: cfg.NumPerm, Mode: VerifyExact,
		Threshold: 0.8, Floor: 1.01}, gather(s, appendHalves, in))
	passert.Count(s, out, "verified batches", 1)
	res, err := ptest.RunWithMetrics(p)
	require.NoError(t, err)
	var filtered int64
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Namespace() == metricsNS && c.Name() == "estimate_filtered" {
			filtered += c.Result()
		}
	}
	require.Equal(t, int64(1), filtered)
}
