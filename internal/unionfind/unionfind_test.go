package unionfind

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Against a naive labelling (relabel one whole set on every union), on random unions:
// the same partition, each set named by its least element under Union and by the rule's
// first under UnionFunc, whatever the order of the pairs.
func TestForestIsNaivePartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(60)
		f := New(n)
		byDesc := New(n)
		label := make([]int, n)
		for i := range label {
			label[i] = i
		}
		for k := rng.IntN(2 * n); k > 0; k-- {
			x, y := rng.IntN(n), rng.IntN(n)
			apart := label[x] != label[y]
			require.Equal(t, apart, f.Union(x, y))
			require.Equal(t, apart, byDesc.UnionFunc(x, y, func(a, b int) bool { return a > b }))
			if from, to := label[x], label[y]; from != to {
				for i := range label {
					if label[i] == from {
						label[i] = to
					}
				}
			}
		}
		least, most := map[int]int{}, map[int]int{}
		for i, l := range label {
			if m, ok := least[l]; !ok || i < m {
				least[l] = i
			}
			most[l] = max(most[l], i)
		}
		for i := range n {
			require.Equal(t, least[label[i]], f.Find(i), "element %d's set is named by its least element", i)
			require.Equal(t, most[label[i]], byDesc.Find(i), "element %d's set is named by the rule's first", i)
		}
	}
}

func TestGrowAddsSingletons(t *testing.T) {
	f := New(2)
	f.Union(0, 1)
	f.Grow(4)
	require.Equal(t, 4, f.Len())
	require.Equal(t, 0, f.Find(1))
	require.Equal(t, 3, f.Find(3))
	f.Grow(3)
	require.Equal(t, 4, f.Len(), "Grow never shrinks")
}
