package containment

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Join reports exactly the pairs a comparison of all pairs reports, on sets that share
// a common header (boilerplate), of sizes 0 to 300 times apart, with planted partial
// copies, and compares fewer pairs than all of them.
func TestJoinMatchesAllPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sets := boilerplateSets(rng)
	for _, th := range []float64{0.5, 0.8, 1} {
		type p struct {
			i, j int
			sim  float64
		}
		var want, got []p
		for i := range sets {
			for j := i + 1; j < len(sets); j++ {
				if s := Of(sets[i], sets[j]); s >= th {
					want = append(want, p{i, j, s})
				}
			}
		}
		compared := Join(sets, th, func(i, j int, sim float64) { got = append(got, p{i, j, sim}) })
		cmpP := func(a, b p) int { return (a.i-b.i)*len(sets) + a.j - b.j }
		slices.SortFunc(got, cmpP)
		require.NotEmpty(t, want, "t=%v", th)
		require.Equal(t, want, got, "t=%v", th)
		require.Less(t, compared, int64(len(sets)*(len(sets)-1)/2), "t=%v", th)
	}
}

// JoinGroups reports each pair that a Join of some group reports, once, and no other:
// groups that overlap (a set in several), sets in no group, empty sets.
func TestJoinGroupsMatchesEachGroupsJoin(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sets := boilerplateSets(rng)
	groups := make([][]int32, len(sets))
	var members [][]int // per group, its sets, ascending
	for g := range 40 {
		var m []int
		for i := range sets {
			if rng.IntN(8) == 0 {
				m = append(m, i)
				groups[i] = append(groups[i], int32(g))
			}
		}
		members = append(members, m)
	}
	for _, th := range []float64{0.5, 0.8, 1} {
		want := map[[2]int]float64{}
		for _, m := range members {
			sub := make([][]uint64, len(m))
			for k, i := range m {
				sub[k] = sets[i]
			}
			Join(sub, th, func(i, j int, sim float64) { want[[2]int{m[i], m[j]}] = sim })
		}
		got := map[[2]int]float64{}
		total := 0
		for _, s := range sets {
			total += len(s)
		}
		_, err := JoinGroups(len(sets), total, func(i int) ([]uint64, error) { return slices.Clone(sets[i]), nil }, groups, th, func(i, j int, sim float64) {
			k := [2]int{i, j}
			_, twice := got[k]
			require.False(t, twice, "pair %v reported twice", k)
			got[k] = sim
		})
		require.NoError(t, err)
		require.NotEmpty(t, want, "t=%v", th)
		require.Equal(t, want, got, "t=%v", th)
	}
}

// JoinBlocks reports exactly the pairs of Join, each once, whatever the limit: one
// block, three, or many, with sets larger than half the limit in blocks alone.
func TestJoinBlocksMatchesJoin(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	sets := boilerplateSets(rng)
	total := 0
	for _, s := range sets {
		total += len(s)
	}
	for _, th := range []float64{0.5, 0.8, 1} {
		want := map[[2]int]float64{}
		Join(sets, th, func(i, j int, sim float64) { want[[2]int{i, j}] = sim })
		require.NotEmpty(t, want, "t=%v", th)
		for _, limit := range []int64{int64(2 * total), int64(total / 3), 4000} {
			got := map[[2]int]float64{}
			loaded := 0
			_, err := JoinBlocks(len(sets), func(i int) int { return len(sets[i]) }, func(i int) ([]uint64, error) {
				loaded++
				return slices.Clone(sets[i]), nil
			}, limit, th, func(i, j int, sim float64) {
				k := [2]int{i, j}
				_, twice := got[k]
				require.False(t, twice, "pair %v reported twice (limit %d)", k, limit)
				got[k] = sim
			})
			require.NoError(t, err)
			require.Equal(t, want, got, "t=%v limit %d", th, limit)
			if limit < int64(total) {
				require.Greater(t, loaded, len(sets), "limit %d: joined in blocks", limit)
			}
		}
	}
}

// boilerplateSets returns 300 sets that share a common header (boilerplate), of sizes
// 0 to 300 times apart, with planted partial copies.
func boilerplateSets(rng *rand.Rand) [][]uint64 {
	header := make([]uint64, 40)
	for i := range header {
		header[i] = rng.Uint64()
	}
	var sets [][]uint64
	for range 300 {
		n := []int{0, 5, 20, 60, 200, 1500}[rng.IntN(6)]
		s := slices.Clone(header[:rng.IntN(len(header)+1)])
		for range n {
			s = append(s, rng.Uint64()%50000)
		}
		if len(sets) > 0 && rng.IntN(3) == 0 { // a partial copy of an earlier set
			src := sets[rng.IntN(len(sets))]
			for _, h := range src {
				if rng.Float64() < 0.85 {
					s = append(s, h)
				}
			}
		}
		slices.Sort(s)
		sets = append(sets, slices.Compact(s))
	}
	return sets
}
