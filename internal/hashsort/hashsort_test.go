package hashsort

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func randomHashes(rng *rand.Rand, n int) []uint64 {
	h := make([]uint64, n)
	for i := range h {
		h[i] = rng.Uint64()
	}
	return h
}

// Uint64s agrees with slices.Sort on hashes, on keys that share their top bits (one
// group), on repeats, and at every length around the small cutoff.
func TestUint64sSorts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, small - 1, small, small + 1, 1000, 4097, 50_000} {
		cases := map[string][]uint64{"random": randomHashes(rng, n)}
		low := make([]uint64, n) // top bits all zero: one group
		rep := make([]uint64, n) // few distinct values
		for i := range low {
			low[i] = rng.Uint64() >> 40
			rep[i] = uint64(rng.IntN(5)) << 61
		}
		cases["low"], cases["repeats"] = low, rep
		for name, h := range cases {
			want := slices.Sorted(slices.Values(h))
			Uint64s(h)
			if !slices.Equal(h, want) {
				t.Fatalf("%s n=%d: not sorted like slices.Sort", name, n)
			}
		}
	}
}

type entry struct {
	key uint64
	id  string
}

func compareEntries(a, b entry) int {
	return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.id, b.id))
}

// Func orders equal keys by the rest of compare, also in groups it sorts again by the
// bits below (keys of 300 values, over 2,048 groups of the top bits).
func TestFuncTiesByCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := make([]entry, 50_000) // groups of several hundred: sorted again on the bits below
	for i := range s {
		s[i] = entry{key: uint64(rng.IntN(300)) << 50, id: fmt.Sprint(rng.IntN(1e6))}
	}
	want := slices.Clone(s)
	slices.SortFunc(want, compareEntries)
	Func(s, func(e entry) uint64 { return e.key }, compareEntries)
	if !slices.Equal(s, want) {
		t.Fatal("not sorted like slices.SortFunc")
	}
}

// BenchmarkUint64s sorts a different slice of hashes each time: sorting the same one over
// and over, the branch predictor learns its comparisons, and a comparison sort of a
// thousand hashes looked four times faster than it is.
func BenchmarkUint64s(b *testing.B) {
	for _, n := range []int{200, 1000, 6000, 100_000, 800_000} {
		rng := rand.New(rand.NewPCG(1, 2))
		src := make([][]uint64, 64)
		for i := range src {
			src[i] = randomHashes(rng, n)
		}
		h := make([]uint64, n)
		for _, sort := range []struct {
			name string
			fn   func([]uint64)
		}{{"hashsort", Uint64s}, {"slices", slices.Sort[[]uint64]}} {
			b.Run(fmt.Sprintf("n=%d/sort=%s", n, sort.name), func(b *testing.B) {
				i := 0
				for b.Loop() {
					copy(h, src[i%len(src)])
					sort.fn(h)
					i++
				}
			})
		}
	}
}
