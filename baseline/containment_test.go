package baseline

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// ContainmentJoin finds exactly the pairs of a brute-force comparison, on sets of very
// different sizes drawn from a small universe (so that many pairs overlap a lot).
func TestContainmentJoinMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var sets [][]uint64
	for range 300 {
		n := []int{0, 1, 3, 10, 40, 120}[rng.IntN(6)]
		s := map[uint64]bool{}
		for len(s) < n {
			s[uint64(rng.IntN(150))] = true
		}
		var xs []uint64
		for h := range s {
			xs = append(xs, h)
		}
		slices.Sort(xs)
		sets = append(sets, xs)
	}
	for _, th := range []float64{0.3, 0.6, 0.8, 1} {
		want := ContainmentBruteForce(sets, th)
		require.NotEmpty(t, want)
		for _, w := range []int{1, 3} {
			require.Equal(t, want, ContainmentJoin(sets, th, w), "t=%v workers=%d", th, w)
		}
	}
}
