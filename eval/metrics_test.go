package eval

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fromLabels turns a label vector (scikit-learn style) into Clusters over ids
// d0, d1, …; the corpus size is len(labels).
func fromLabels(labels []int) Clusters {
	groups := map[int][]string{}
	var order []int
	for i, l := range labels {
		if _, ok := groups[l]; !ok {
			order = append(order, l)
		}
		groups[l] = append(groups[l], fmt.Sprintf("d%d", i))
	}
	var out Clusters
	for _, l := range order {
		if len(groups[l]) >= 2 {
			out = append(out, groups[l])
		}
	}
	return out
}

func compareLabels(t *testing.T, a, b []int) PairCounts {
	t.Helper()
	require.Equal(t, len(a), len(b))
	pc, err := Compare(fromLabels(a), fromLabels(b), int64(len(a)))
	require.NoError(t, err)
	return pc
}

// Values from scikit-learn's adjusted_rand_score documentation.
func TestARIScikitLearnExamples(t *testing.T) {
	for _, c := range []struct {
		a, b []int
		want float64
	}{
		{[]int{0, 0, 1, 1}, []int{0, 0, 1, 1}, 1.0},
		{[]int{0, 0, 1, 1}, []int{1, 1, 0, 0}, 1.0},
		{[]int{0, 0, 1, 2}, []int{0, 0, 1, 1}, 4.0 / 7}, // "0.57..."
		{[]int{0, 0, 1, 1}, []int{0, 0, 1, 2}, 4.0 / 7},
		{[]int{0, 0, 0, 0}, []int{0, 1, 2, 3}, 0.0},
		{[]int{0, 0, 1, 1}, []int{0, 1, 0, 1}, -0.5},
	} {
		assert.InDelta(t, c.want, compareLabels(t, c.a, c.b).ARI(), 1e-12, "%v vs %v", c.a, c.b)
	}
	// Both all singletons: nothing to disagree on.
	assert.Equal(t, 1.0, compareLabels(t, []int{0, 1, 2}, []int{5, 6, 7}).ARI())
}

// The worked example of Manning, Raghavan & Schütze, Introduction to Information
// Retrieval, §16.3 (Figure 16.4): 17 points of classes x, o, ◇ in three clusters.
// The book gives TP = 20, FP = 20, FN = 24, TN = 72, RI = 0.68, P = 0.5, R = 0.455.
func TestPairCountsIIRExample(t *testing.T) {
	const x, o, d = 0, 1, 2
	classes := []int{x, x, x, x, x, o, x, o, o, o, o, d, x, x, d, d, d}
	clusters := []int{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3}
	pc := compareLabels(t, classes, clusters)
	assert.Equal(t, int64(20), pc.Both, "TP")
	assert.Equal(t, int64(20), pc.B-pc.Both, "FP")
	assert.Equal(t, int64(24), pc.A-pc.Both, "FN")
	assert.Equal(t, int64(72), pc.AllPairs-pc.A-pc.B+pc.Both, "TN")
	assert.InDelta(t, 0.68, pc.RandIndex(), 0.005)
	assert.InDelta(t, 0.5, pc.Precision(), 1e-12)
	assert.InDelta(t, 0.455, pc.Recall(), 0.0005)
	assert.InDelta(t, 2*0.5*(20.0/44)/(0.5+20.0/44), pc.F1(), 1e-12)
}

// bruteCounts enumerates every pair of n documents: the independent check of the
// contingency-table counts, and ARI by scikit-learn's pair-confusion formula.
func bruteCounts(a, b []int) (tp, fp, fn, tn int64, ari float64) {
	for i := range a {
		for j := i + 1; j < len(a); j++ {
			sa, sb := a[i] == a[j], b[i] == b[j]
			switch {
			case sa && sb:
				tp++
			case sb:
				fp++
			case sa:
				fn++
			default:
				tn++
			}
		}
	}
	if fn == 0 && fp == 0 {
		return tp, fp, fn, tn, 1
	}
	ari = 2 * (float64(tp)*float64(tn) - float64(fn)*float64(fp)) /
		((float64(tp)+float64(fn))*(float64(fn)+float64(tn)) + (float64(tp)+float64(fp))*(float64(fp)+float64(tn)))
	return tp, fp, fn, tn, ari
}

func TestCompareMatchesPairEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		n := 1 + r.IntN(60)
		k := 1 + r.IntN(n)
		a, b := make([]int, n), make([]int, n)
		for i := range a {
			a[i] = r.IntN(k)
			b[i] = r.IntN(1 + r.IntN(n))
			if r.IntN(3) == 0 {
				b[i] = a[i] // correlated clusterings too
			}
		}
		tp, fp, fn, tn, ari := bruteCounts(a, b)
		pc := compareLabels(t, a, b)
		require.Equal(t, tp, pc.Both, "trial %d", trial)
		require.Equal(t, tp+fp, pc.B)
		require.Equal(t, tp+fn, pc.A)
		require.Equal(t, tp+fp+fn+tn, pc.AllPairs)
		require.InDelta(t, ari, pc.ARI(), 1e-9, "trial %d: %v vs %v", trial, a, b)
	}
}

// A result whose clusters all lie inside truth clusters claims no wrong pair.
func TestPrecisionOneWhenResultInsideTruth(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var truth, result Clusters
	id := 0
	for range 50 {
		size := 2 + r.IntN(8)
		var c []string
		for range size {
			c = append(c, fmt.Sprintf("doc-%04d", id))
			id++
		}
		truth = append(truth, c)
		// Split the truth cluster into random parts; keep those of size ≥ 2.
		r.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
		for len(c) > 0 {
			k := 1 + r.IntN(len(c))
			if k >= 2 {
				result = append(result, append([]string(nil), c[:k]...))
			}
			c = c[k:]
		}
	}
	pc, err := Compare(truth, result, int64(id+100))
	require.NoError(t, err)
	assert.Equal(t, 1.0, pc.Precision())
	assert.Less(t, pc.Recall(), 1.0)
	assert.Greater(t, pc.Recall(), 0.0)

	// And the reverse: a result covering the truth has recall 1.
	pc, err = Compare(result, truth, int64(id+100))
	require.NoError(t, err)
	assert.Equal(t, 1.0, pc.Recall())
	assert.Less(t, pc.Precision(), 1.0)
}

func TestCompareEdgeCases(t *testing.T) {
	truth := Clusters{{"a", "b"}, {"c", "d", "e"}}
	pc, err := Compare(truth, nil, 10)
	require.NoError(t, err)
	assert.Equal(t, 1.0, pc.Precision(), "no claims, no wrong claims")
	assert.Equal(t, 0.0, pc.Recall())
	assert.Equal(t, 0.0, pc.F1())
	assert.Equal(t, 0.0, pc.ARI())

	pc, err = Compare(truth, truth, 10)
	require.NoError(t, err)
	assert.Equal(t, [4]float64{1, 1, 1, 1}, [4]float64{pc.Precision(), pc.Recall(), pc.F1(), pc.ARI()})

	_, err = Compare(Clusters{{"a", "b"}, {"b", "c"}}, nil, 10)
	assert.ErrorContains(t, err, `"b" is in two clusters`)
	_, err = Compare(truth, Clusters{{"x", "y"}, {"y", "z"}}, 10)
	assert.Error(t, err)
	_, err = Compare(truth, nil, 4)
	assert.ErrorContains(t, err, "corpus has 4")
}

func TestComponents(t *testing.T) {
	got := Components([][2]string{{"b", "c"}, {"e", "d"}, {"a", "c"}, {"x", "y"}, {"y", "x"}})
	assert.Equal(t, Clusters{{"a", "b", "c"}, {"d", "e"}, {"x", "y"}}, got)
	assert.Empty(t, Components(nil))

	// A long chain, given in an order that builds deep trees.
	var edges [][2]string
	const n = 100000
	for i := n - 1; i > 0; i-- {
		edges = append(edges, [2]string{fmt.Sprintf("%06d", i), fmt.Sprintf("%06d", i-1)})
	}
	got = Components(edges)
	require.Len(t, got, 1)
	assert.Len(t, got[0], n)
	assert.Equal(t, "000000", got[0][0])
}

// BenchmarkCompare compares two clusterings of a million documents with clusters
// up to 100,000 documents: counts come from the contingency table, so the cost
// follows the documents, not the 10¹⁰ pairs.
func BenchmarkCompare(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	const n = 1_000_000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("doc-%07d", i)
	}
	var truth, result Clusters
	truth = append(truth, ids[:100000])
	for i := 100000; i+4 <= n/2; i += 4 {
		truth = append(truth, ids[i:i+4])
	}
	result = append(result, ids[50000:150000])
	for i := 150000; i+3 <= n/2; i += 3 {
		result = append(result, ids[i:i+3])
	}
	r.Shuffle(len(result), func(i, j int) { result[i], result[j] = result[j], result[i] })
	for b.Loop() {
		if _, err := Compare(truth, result, n); err != nil {
			b.Fatal(err)
		}
	}
}
