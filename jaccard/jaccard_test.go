package jaccard

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hashSet turns string elements into the sorted distinct hash set Similarity expects.
func hashSet(elems ...string) []uint64 {
	out := make([]uint64, 0, len(elems))
	for _, e := range elems {
		out = append(out, xxhash.Sum64String(e))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestSeedExample(t *testing.T) {
	// The seed's word-bigram sets after lower-casing.
	d1 := hashSet("red blue", "blue green")
	d2 := hashSet("red blue", "blue green", "green yellow")
	d3 := hashSet("black white")
	d4 := hashSet("red blue", "blue green") // 'RED BLUE GREEN' lower-cased

	j12 := Similarity(d1, d2)
	assert.Equal(t, float64(2)/float64(3), j12)
	assert.Equal(t, "0.6666666666666666", strconv.FormatFloat(j12, 'g', -1, 64))
	assert.Equal(t, 0.0, Similarity(d1, d3))
	assert.Equal(t, 0.0, Similarity(d2, d3))
	assert.Equal(t, 1.0, Similarity(d1, d4))
	assert.Equal(t, 2, Intersection(d1, d2))
	assert.Equal(t, 0, Intersection(d1, d3))
}

func TestEmptyRules(t *testing.T) {
	one := []uint64{7}
	assert.Equal(t, 1.0, Similarity(nil, nil))
	assert.Equal(t, 1.0, Similarity([]uint64{}, nil))
	assert.Equal(t, 0.0, Similarity(nil, one))
	assert.Equal(t, 0.0, Similarity(one, []uint64{}))
	assert.Equal(t, 0, Intersection(nil, one))
	assert.Equal(t, 1.0, Similarity(one, one))
}

func TestExactFractions(t *testing.T) {
	// Sets built like the datasketch vectors' half_A/half_B (J = 0.5) and
	// third_A/third_B (J = 1/3).
	mk := func(prefix string, lo, hi int) []uint64 {
		var e []string
		for i := lo; i < hi; i++ {
			e = append(e, prefix+strconv.Itoa(i))
		}
		return hashSet(e...)
	}
	assert.Equal(t, 0.5, Similarity(mk("e-", 0, 150), mk("e-", 50, 200)))
	assert.Equal(t, float64(1)/float64(3), Similarity(mk("t-", 0, 200), mk("t-", 100, 300)))
	assert.Equal(t, 100, Intersection(mk("e-", 0, 150), mk("e-", 50, 200)))
}

// refJaccard is the map-based definition the merge must agree with.
func refJaccard(a, b []uint64) (inter, union int) {
	set := map[uint64]bool{}
	for _, x := range a {
		set[x] = true
	}
	u := map[uint64]bool{}
	for _, x := range a {
		u[x] = true
	}
	for _, y := range b {
		if set[y] {
			inter++
		}
		u[y] = true
	}
	return inter, len(u)
}

func randomSet(r *rand.Rand, n int, universe uint64) []uint64 {
	s := make([]uint64, 0, n)
	for range n {
		s = append(s, r.Uint64N(universe))
	}
	slices.Sort(s)
	return slices.Compact(s)
}

func TestPropertyAgainstMapReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 2000 {
		// Small universes force overlap; large ones (full uint64 range) test
		// extreme values, including 0 and MaxUint64 boundaries via the PCG.
		universe := []uint64{4, 16, 64, 1 << 20, ^uint64(0)}[iter%5]
		a := randomSet(r, r.IntN(40), universe)
		b := randomSet(r, r.IntN(40), universe)
		inter, union := refJaccard(a, b)
		require.Equal(t, inter, Intersection(a, b), "a=%v b=%v", a, b)
		require.Equal(t, inter, Intersection(b, a), "symmetry")
		want := 1.0
		if union > 0 {
			want = float64(inter) / float64(union)
		}
		require.Equal(t, want, Similarity(a, b), "a=%v b=%v", a, b)
		require.Equal(t, Similarity(a, b), Similarity(b, a), "symmetry")
		j := Similarity(a, b)
		require.True(t, j >= 0 && j <= 1)
		require.Equal(t, 1.0, Similarity(a, a), "reflexive")
	}
}

func TestExtremeValues(t *testing.T) {
	a := []uint64{0, 1, ^uint64(0)}
	b := []uint64{0, ^uint64(0) - 1, ^uint64(0)}
	assert.Equal(t, 2, Intersection(a, b))
	assert.Equal(t, 0.5, Similarity(a, b))
}

func BenchmarkJaccard200(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	x := randomSet(r, 200, 400)
	y := randomSet(r, 200, 400)
	for b.Loop() {
		_ = Similarity(x, y)
	}
}
