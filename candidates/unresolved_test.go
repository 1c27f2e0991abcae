package candidates

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/jaccard"
)

// TestUnresolvedIsExact: on small buckets cut short by budgets of every size, Unresolved
// equals a brute-force count of the pairs left undecided — both members not yet taken
// apart, never compared, in different clusters — and every other pair is decided: a pair
// with a member taken apart that was neither compared nor joined is below the threshold.
func TestUnresolvedIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 1))
	cut, cutMidRound := 0, 0
	for trial := range 2000 {
		sets := bucket(r)
		if len(sets) > 40 {
			sets = sets[:2+r.IntN(39)]
		}
		k := len(sets)
		threshold := []float64{0.5, 0.7, 0.8, 0.9}[r.IntN(4)]
		budget := r.Int64N(int64(k*(k-1)/2) + 1)

		compared := map[[2]int]bool{}
		sim := func(i, j int) float64 {
			compared[[2]int{i, j}] = true
			return jaccard.Similarity(sets[i], sets[j])
		}
		apart := make([]bool, k)
		res := resolve(k, threshold, budget, sim, func(ball []int) {
			for _, m := range ball {
				require.False(t, apart[m], "trial %d: member %d taken apart twice", trial, m)
				apart[m] = true
			}
		})
		require.LessOrEqual(t, res.Compared, budget)
		require.EqualValues(t, len(compared), res.Compared)

		label := clusters(k, threshold, compared, sets)
		var undecided, missed int64
		for i := range k {
			for j := i + 1; j < k; j++ {
				if compared[[2]int{i, j}] || label[i] == label[j] {
					continue
				}
				isTrue := jaccard.Similarity(sets[i], sets[j]) >= threshold
				if isTrue {
					missed++
				}
				if apart[i] || apart[j] {
					require.False(t, isTrue, "trial %d: true pair %d–%d left behind a taken-apart member", trial, i, j)
					continue
				}
				undecided++
			}
		}
		require.Equal(t, undecided, res.Unresolved, "trial %d: k=%d t=%v budget=%d", trial, k, threshold, budget)
		require.GreaterOrEqual(t, res.Unresolved, missed, "trial %d", trial)
		if res.Unresolved > 0 {
			cut++
			if k > 2 && budget > int64(k-1) && len(compared) > 0 {
				cutMidRound++
			}
		}
	}
	require.Greater(t, cut, 100, "most budgets must leave pairs undecided")
	require.Greater(t, cutMidRound, 50, "many must stop inside a pivot's round")
}

// clusters labels members by the components of the compared pairs that reach the
// threshold.
func clusters(k int, threshold float64, compared map[[2]int]bool, sets [][]uint64) []int {
	label := make([]int, k)
	for i := range label {
		label[i] = i
	}
	for changed := true; changed; {
		changed = false
		for p := range compared {
			if jaccard.Similarity(sets[p[0]], sets[p[1]]) < threshold {
				continue
			}
			if a, b := label[p[0]], label[p[1]]; a != b {
				label[p[0]], label[p[1]] = min(a, b), min(a, b)
				changed = true
			}
		}
	}
	return label
}
