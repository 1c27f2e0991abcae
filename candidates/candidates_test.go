package candidates

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func collect(ids []string, maxAll int) ([][2]string, bool) {
	var out [][2]string
	n, all := Pairs(ids, maxAll, func(u, v string) { out = append(out, [2]string{u, v}) })
	if n != len(out) {
		panic("count")
	}
	return out, all
}

func TestPairsAllPairsUpToTheBound(t *testing.T) {
	got, all := collect([]string{"c", "a", "d", "b"}, 4)
	assert.True(t, all)
	assert.Equal(t, [][2]string{{"a", "b"}, {"a", "c"}, {"a", "d"}, {"b", "c"}, {"b", "d"}, {"c", "d"}}, got)

	got, all = collect([]string{"c", "a", "d", "b"}, 3)
	assert.False(t, all, "a larger bucket is for Resolve")
	assert.Empty(t, got)

	got, _ = collect([]string{"x"}, 3)
	assert.Empty(t, got)
}

// The pairs must not depend on the order the members arrived in.
func TestPairsIndependentOfOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, maxAll := range []int{3, 100} {
		ids := make([]string, 40)
		for i := range ids {
			ids[i] = fmt.Sprintf("id%03d", r.IntN(1000))
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
		want, _ := collect(slices.Clone(ids), maxAll)
		for range 5 {
			sh := slices.Clone(ids)
			r.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
			got, _ := collect(sh, maxAll)
			require.Equal(t, want, got)
		}
	}
}
