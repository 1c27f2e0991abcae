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
	n, star := Pairs(ids, maxAll, func(u, v string) { out = append(out, [2]string{u, v}) })
	if n != len(out) {
		panic("count")
	}
	return out, star
}

func TestPairsAllPairsUpToTheBound(t *testing.T) {
	got, star := collect([]string{"c", "a", "d", "b"}, 4)
	assert.False(t, star)
	assert.Equal(t, [][2]string{{"a", "b"}, {"a", "c"}, {"a", "d"}, {"b", "c"}, {"b", "d"}, {"c", "d"}}, got)

	got, star = collect([]string{"c", "a", "d", "b"}, 3)
	assert.True(t, star)
	assert.Equal(t, [][2]string{{"a", "b"}, {"a", "c"}, {"a", "d"}}, got, "star from the smallest id")

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

// bruteUnresolved enumerates the pairs: not compared (not with the hub) and in
// different clusters.
func bruteUnresolved(labels []string, hub int) int64 {
	var n int64
	for i := range labels {
		for j := i + 1; j < len(labels); j++ {
			if i != hub && j != hub && labels[i] != labels[j] {
				n++
			}
		}
	}
	return n
}

func TestUnresolvedMatchesEnumeration(t *testing.T) {
	// All in the hub's cluster: nothing unresolved (the boilerplate case).
	assert.Equal(t, int64(0), Unresolved([]string{"a", "a", "a", "a"}, 0))
	// The hub failed against b and c, which are in different clusters: b–c unresolved.
	assert.Equal(t, int64(1), Unresolved([]string{"a", "b", "c"}, 0))
	// b passed against the hub, c failed: b–c unresolved (the hole of re-starring).
	assert.Equal(t, int64(1), Unresolved([]string{"a", "a", "c"}, 0))
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		k := 1 + r.IntN(30)
		labels := make([]string, k)
		for i := range labels {
			labels[i] = fmt.Sprint(r.IntN(1 + r.IntN(6)))
		}
		hub := r.IntN(k)
		require.Equal(t, bruteUnresolved(labels, hub), Unresolved(labels, hub), "%v hub %d", labels, hub)
	}
}
