package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/baseline"
	"github.com/neardup/neardup/gen"
	"github.com/neardup/neardup/gen/gentest"
)

func TestRecallBySimilarity(t *testing.T) {
	pairs := []baseline.IDPair{
		{A: "a", B: "b", Similarity: 0.69},        // below the buckets
		{A: "a", B: "c", Similarity: 0.7},         // first bucket, found
		{A: "d", B: "e", Similarity: 3.0 / 4},     // 0.75 exactly: second bucket, not found
		{A: "a", B: "d", Similarity: 0.8 - 1e-17}, // the float nearest 0.8: third bucket
		{A: "x", B: "y", Similarity: 1.0},         // last bucket, found
		{A: "x", B: "z", Similarity: 0.99},        // last bucket, z in no cluster
	}
	result := Clusters{{"a", "b", "c"}, {"d", "f"}, {"x", "y"}, {"e", "g"}}
	bs, err := RecallBySimilarity(pairs, result, 0.7, 0.05, 9, 13)
	require.NoError(t, err)
	require.Len(t, bs, 6)
	want := []struct {
		lo, hi       float64
		pairs, found int64
	}{{0.7, 0.75, 1, 1}, {0.75, 0.8, 1, 0}, {0.8, 0.85, 1, 0}, {0.85, 0.9, 0, 0}, {0.9, 0.95, 0, 0}, {0.95, 1, 2, 1}}
	for i, w := range want {
		b := bs[i]
		assert.Equal(t, [2]float64{w.lo, w.hi}, [2]float64{b.Lo, b.Hi}, "bucket %d", i)
		assert.Equal(t, [2]int64{w.pairs, w.found}, [2]int64{b.Pairs, b.Found}, "bucket %d", i)
		// The S-curve averaged over the bucket's pairs' similarities; the midpoint when empty.
		sims := map[int][]float64{0: {0.7}, 1: {0.75}, 2: {0.8 - 1e-17}, 5: {1.0, 0.99}}[i]
		if sims == nil {
			sims = []float64{(w.lo + w.hi) / 2}
		}
		var want float64
		for _, s := range sims {
			want += 1 - math.Pow(1-math.Pow(s, 13), 9)
		}
		require.NotNil(t, b.Predicted)
		assert.InDelta(t, want/float64(len(sims)), *b.Predicted, 1e-12)
	}
	assert.Equal(t, 0.5, bs[5].Recall)
	assert.Equal(t, 1.0, bs[3].Recall, "an empty bucket misses nothing")

	bs, err = RecallBySimilarity(pairs, result, 0.5, 0.1, 0, 0)
	require.NoError(t, err)
	require.Len(t, bs, 5)
	assert.Nil(t, bs[0].Predicted)
	var counts []int64
	for _, b := range bs {
		counts = append(counts, b.Pairs)
	}
	assert.Equal(t, []int64{0, 1, 2, 1, 2}, counts, "0.69 | 0.7, 0.75 | 0.8 | 0.99, 1.0")
}

// fixture is a generated corpus with its truth, and a result dir to fill.
type fixture struct {
	corpus, truth, dir string
	n                  int
}

func newFixture(t *testing.T, n int) fixture {
	t.Helper()
	dir := t.TempDir()
	o := gen.Defaults()
	o.N = n
	o.DupFraction = 0.15
	o.Output = gentest.Write(t, o)
	res := filepath.Join(dir, "result")
	require.NoError(t, os.Mkdir(res, 0o755))
	return fixture{corpus: o.Output, truth: o.TruthPath(), dir: res, n: n}
}

// writeResult writes clusters.jsonl in neardup's layout and a stats.json.
func (f fixture) writeResult(t *testing.T, c Clusters, stats string) {
	t.Helper()
	var b bytes.Buffer
	for _, m := range c {
		line, err := json.Marshal(map[string]any{"cluster": m[0], "size": len(m), "kept": m[0], "members": m})
		require.NoError(t, err)
		b.Write(append(line, '\n'))
	}
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, "clusters.jsonl"), b.Bytes(), 0o644))
	if stats != "" {
		require.NoError(t, os.WriteFile(filepath.Join(f.dir, "stats.json"), []byte(stats), 0o644))
	}
}

func statsJSON(n int) string {
	return fmt.Sprintf(`{"parameters": {"num_perm": 128, "b": 9, "r": 13, "threshold": 0.8, "ngram": 5,
		"shingle": "word", "strip_punct": false, "hash": "xxhash"}, "counts": {"documents_read": %d}}`, n)
}

func TestEvaluatePerfectResults(t *testing.T) {
	f := newFixture(t, 1500)
	truth, err := ReadClustersFile(f.truth)
	require.NoError(t, err)
	require.NotEmpty(t, truth)
	ctx := context.Background()

	// The result is the truth itself.
	f.writeResult(t, truth, statsJSON(f.n))
	o := Defaults()
	o.Truth, o.Result = f.truth, f.dir
	r, err := Evaluate(ctx, o)
	require.NoError(t, err)
	assert.Equal(t, int64(f.n), r.Documents)
	assert.Equal(t, ReportParams{Threshold: 0.8, Bands: 9, Rows: 13, NGram: 5, Shingle: "word"}, r.Parameters)
	a := r.VsTruth
	require.NotNil(t, a)
	assert.Equal(t, [4]float64{1, 1, 1, 1}, [4]float64{a.Precision, a.Recall, a.F1, a.ARI})
	assert.Nil(t, r.VsExact)

	// The result is the exact join's components: computed here from the input.
	c, err := baseline.Load(ctx, baseline.Options{Input: []string{f.corpus}, IDField: "id", TextField: "text",
		Threshold: 0.8, Shingle: baseline.Defaults().Shingle, Hash: baseline.Defaults().Hash})
	require.NoError(t, err)
	var edges [][2]string
	for _, p := range c.Pairs(0.8, 0) {
		edges = append(edges, [2]string{p.A, p.B})
	}
	comps := Components(edges)
	require.NotEmpty(t, comps)
	f.writeResult(t, comps, statsJSON(f.n))
	o.Input = []string{f.corpus}
	r, err = Evaluate(ctx, o)
	require.NoError(t, err)
	require.NotNil(t, r.VsExact)
	a = r.VsExact
	assert.Equal(t, [4]float64{1, 1, 1, 1}, [4]float64{a.Precision, a.Recall, a.F1, a.ARI})
	assert.Equal(t, int64(len(edges)), r.Exact.Pairs)
	assert.Equal(t, 1.0, r.Exact.PairRecall)
	assert.Equal(t, 0.7, r.Exact.JoinThreshold, "joined down to the lowest bucket")
	require.Len(t, r.Buckets, 6)
	var bucketed int64
	for _, b := range r.Buckets {
		if b.Lo >= 0.8 {
			assert.Equal(t, b.Pairs, b.Found, "bucket %v: every pair ≥ threshold is in a component", b.Lo)
		}
		bucketed += b.Pairs
	}
	assert.Equal(t, r.Exact.AllPairs, bucketed)
	assert.Greater(t, r.Exact.AllPairs, r.Exact.Pairs, "pairs in 0.70–0.80 were joined too")
	// Planted duplicates below the threshold are missed: recall against the truth < 1.
	assert.Less(t, r.VsTruth.Recall, 1.0)
	assert.Greater(t, r.VsTruth.Precision, 0.9)
	assert.Empty(t, r.Warnings)

	// The same pairs from a file give the same report, but for the join threshold.
	pairsPath := filepath.Join(t.TempDir(), "exact.jsonl")
	var pb bytes.Buffer
	require.NoError(t, baseline.WritePairs(&pb, c.Pairs(0.7, 0)))
	require.NoError(t, os.WriteFile(pairsPath, pb.Bytes(), 0o644))
	o2 := o
	o2.Input, o2.Exact = nil, pairsPath
	r2, err := Evaluate(ctx, o2)
	require.NoError(t, err)
	r.Exact.JoinThreshold = 0
	assert.Equal(t, r, r2)
}

func TestEvaluateEmptyResult(t *testing.T) {
	f := newFixture(t, 300)
	f.writeResult(t, nil, statsJSON(f.n))
	o := Defaults()
	o.Truth, o.Result, o.Input = f.truth, f.dir, []string{f.corpus}
	r, err := Evaluate(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, 1.0, r.VsTruth.Precision)
	assert.Equal(t, 0.0, r.VsTruth.Recall)
	assert.Equal(t, 0.0, r.VsTruth.ARI)
	for _, b := range r.Buckets {
		assert.Equal(t, int64(0), b.Found)
	}
}

func TestEvaluateParametersAndErrors(t *testing.T) {
	f := newFixture(t, 200)
	f.writeResult(t, Clusters{{"doc-0000001", "doc-0000002"}}, "")
	o := Defaults()
	o.Truth, o.Result = f.truth, f.dir
	_, err := Evaluate(context.Background(), o)
	assert.ErrorContains(t, err, "number of documents is unknown")

	// Flags stand in for stats.json.
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	o = Defaults()
	o.RegisterFlags(fs)
	require.NoError(t, fs.Parse([]string{"-truth", f.truth, "-result", filepath.Join(f.dir, "clusters.jsonl"),
		"-docs", "200", "-bands", "20", "-rows", "5", "-threshold", "0.5", "-input", f.corpus, "-ngram", "3",
		"-strip-punct", "-bucket-min", "0.5", "-bucket-width", "0.1"}))
	r, err := Evaluate(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, ReportParams{Threshold: 0.5, Bands: 20, Rows: 5, NGram: 3, Shingle: "word", StripPunct: true}, r.Parameters)
	assert.Len(t, r.Buckets, 5)
	assert.Equal(t, 0.5, r.Exact.JoinThreshold)
	assert.Contains(t, strings.Join(r.Warnings, "\n"), "no stats.json")

	o.Result = filepath.Join(f.dir, "missing")
	_, err = Evaluate(context.Background(), o)
	assert.True(t, errors.Is(err, os.ErrNotExist), "%v", err)
	o = Defaults()
	o.Result = f.dir
	_, err = Evaluate(context.Background(), o)
	assert.ErrorContains(t, err, "nothing to compare")
}

func TestRunOutputs(t *testing.T) {
	f := newFixture(t, 400)
	truth, err := ReadClustersFile(f.truth)
	require.NoError(t, err)
	f.writeResult(t, truth[:len(truth)/2], statsJSON(f.n))
	o := Defaults()
	o.Truth, o.Result, o.Input = f.truth, f.dir, []string{f.corpus}
	o.SVG = filepath.Join(t.TempDir(), "recall.svg")

	var text bytes.Buffer
	require.NoError(t, Run(o, &text))
	out := text.String()
	for _, s := range []string{"corpus: 400 documents", "LSH b=9 r=13", "planted truth", "exact components (J ≥ 0.8)",
		"precision", "ARI", "0.70–0.75", "0.95–1.00", "S-curve"} {
		assert.Contains(t, out, s)
	}

	svg, err := os.ReadFile(o.SVG)
	require.NoError(t, err)
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var texts []string
	polylines, circles := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the SVG is well-formed XML")
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "polyline":
				polylines++
			case "circle":
				circles++
			}
		case xml.CharData:
			texts = append(texts, string(e))
		}
	}
	joined := strings.Join(texts, "|")
	assert.Contains(t, joined, "exact Jaccard similarity")
	assert.Contains(t, joined, "recall")
	assert.Contains(t, joined, "b=9 bands × r=13 rows")
	assert.Equal(t, 1, polylines, "the S-curve")
	assert.Greater(t, circles, 1, "measured points (and the legend's)")

	o.JSON, o.SVG = true, ""
	var js bytes.Buffer
	require.NoError(t, RunContext(context.Background(), o, &js))
	var back Report
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	assert.Equal(t, int64(400), back.Documents)
	require.NotNil(t, back.VsTruth)
	assert.Equal(t, 1.0, back.VsTruth.Precision, "half the truth: no wrong pair")
	assert.Less(t, back.VsTruth.Recall, 1.0)
	assert.Len(t, back.Buckets, 6)
}
