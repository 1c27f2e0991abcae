package candidates

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/jaccard"
)

// run resolves sets with the exact Jaccard and returns the accepted edges' clusters (a
// label per member), every pair compared, and the result.
func run(t *testing.T, sets [][]uint64, threshold float64, budget int64) ([]int, map[[2]int]bool, Resolution) {
	t.Helper()
	label := make([]int, len(sets))
	for i := range label {
		label[i] = i
	}
	relabel := func(from, to int) {
		for i, l := range label {
			if l == from {
				label[i] = to
			}
		}
	}
	compared := map[[2]int]bool{}
	res := Resolve(len(sets), threshold, budget, func(i, j int) float64 {
		require.Less(t, i, j)
		require.False(t, compared[[2]int{i, j}], "pair %d–%d compared twice", i, j)
		compared[[2]int{i, j}] = true
		s := jaccard.Similarity(sets[i], sets[j])
		if s >= threshold && label[i] != label[j] {
			relabel(max(label[i], label[j]), min(label[i], label[j]))
		}
		return s
	})
	require.EqualValues(t, len(compared), res.Compared)
	return label, compared, res
}

// truePairsMissed counts the pairs with J ≥ threshold in different clusters.
func truePairsMissed(sets [][]uint64, label []int, threshold float64) int64 {
	var n int64
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			if label[i] != label[j] && jaccard.Similarity(sets[i], sets[j]) >= threshold {
				n++
			}
		}
	}
	return n
}

// family returns n sets grown from one base by random substitutions: chains (each from
// the previous) or stars (each from the base), with edit sizes around the threshold.
func family(r *rand.Rand, n, size, maxEdit int, chain bool) [][]uint64 {
	base := make([]uint64, size)
	for i := range base {
		base[i] = r.Uint64N(1 << 20)
	}
	out := [][]uint64{base}
	for len(out) < n {
		from := base
		if chain {
			from = out[len(out)-1]
		}
		x := slices.Clone(from)
		for range 1 + r.IntN(maxEdit) {
			x[r.IntN(len(x))] = r.Uint64N(1 << 20)
		}
		out = append(out, x)
	}
	for i := range out {
		slices.Sort(out[i])
		out[i] = slices.Compact(out[i])
	}
	return out
}

// bucket mixes a few families in one random order, as a bucket's ids order its members.
func bucket(r *rand.Rand) [][]uint64 {
	var sets [][]uint64
	for range 1 + r.IntN(4) {
		sets = append(sets, family(r, 2+r.IntN(40), 40+r.IntN(60), 2+r.IntN(25), r.IntN(2) == 0)...)
	}
	r.Shuffle(len(sets), func(i, j int) { sets[i], sets[j] = sets[j], sets[i] })
	return sets
}

// TestResolveFindsEveryTruePair is the guarantee: with budget to spare, every pair of a
// bucket whose Jaccard reaches the threshold ends in one cluster, whatever the order.
func TestResolveFindsEveryTruePair(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		sets := bucket(r)
		for _, threshold := range []float64{0.5, 0.7, 0.8, 0.9} {
			label, compared, res := run(t, sets, threshold, 1<<40)
			k := len(sets)
			require.Zero(t, truePairsMissed(sets, label, threshold), "trial %d, t=%v, k=%d", trial, threshold, k)
			require.Zero(t, res.Unresolved)
			require.LessOrEqual(t, len(compared), k*(k-1)/2)
		}
	}
}

// TestResolveClosesTheStarHole is the case star edges and re-starring both miss: the hub
// a passes against b and fails against c, and b–c is a true pair.
func TestResolveClosesTheStarHole(t *testing.T) {
	seq := func(lo, hi uint64) []uint64 {
		var s []uint64
		for x := lo; x < hi; x++ {
			s = append(s, x)
		}
		return s
	}
	a, b, c := seq(0, 100), seq(10, 110), seq(20, 120) // J(a,b) = J(b,c) = 90/110, J(a,c) = 80/120
	threshold := 0.8
	require.GreaterOrEqual(t, jaccard.Similarity(a, b), threshold)
	require.Less(t, jaccard.Similarity(a, c), threshold)
	label, compared, _ := run(t, [][]uint64{a, c, b}, threshold, 1<<40)
	require.Equal(t, label[0], label[1], "a–b–c is one cluster: c joins through b")
	require.Equal(t, label[0], label[2])
	require.True(t, compared[[2]int{1, 2}], "c–b compared after the hub failed c")
}

// TestResolveCostOfNearCopies: a family of near-copies costs about one comparison per
// member, not k²/2.
func TestResolveCostOfNearCopies(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	sets := family(r, 2000, 200, 8, false)
	label, _, res := run(t, sets, 0.8, 1<<40)
	require.Zero(t, truePairsMissed(sets, label, 0.8))
	require.LessOrEqual(t, res.Compared, int64(2*len(sets)), "near-copies cost about k comparisons")
}

// TestResolveBudget: when the budget runs out the comparisons stop there and every true
// pair left in different clusters is counted in Unresolved (an upper bound).
func TestResolveBudget(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	short := 0
	for trial := range 200 {
		sets := bucket(r)
		budget := int64(len(sets) / 2 * (1 + r.IntN(4)))
		label, _, res := run(t, sets, 0.8, budget)
		require.LessOrEqual(t, res.Compared, budget, "trial %d", trial)
		missed := truePairsMissed(sets, label, 0.8)
		require.GreaterOrEqual(t, res.Unresolved, missed, "trial %d", trial)
		if missed > 0 {
			short++
		}
	}
	require.Positive(t, short, "some budgets must be too small to find every pair")
}

func ExampleResolve() {
	sets := [][]uint64{{1, 2, 3, 4, 5}, {1, 2, 3, 4, 6}, {1, 2, 3, 4, 5, 6}}
	res := Resolve(len(sets), 0.6, 100, func(i, j int) float64 { return jaccard.Similarity(sets[i], sets[j]) })
	fmt.Println(res.Compared, res.Unresolved)
	// Output: 2 0
}

// TestBudgetCoversSmallBuckets: with the defaults a bucket of up to 1,024 mutually
// distant sets gets all its pairs, and a large one DefaultComparisons per set.
func TestBudgetCoversSmallBuckets(t *testing.T) {
	for _, k := range []int{101, 250, 1024} {
		require.GreaterOrEqual(t, Budget(k, DefaultComparisons, BudgetFloor), int64(k*(k-1)/2), "k=%d", k)
	}
	require.Equal(t, int64(DefaultComparisons*200_000), Budget(200_000, DefaultComparisons, BudgetFloor))
}
