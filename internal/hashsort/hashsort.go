// Package hashsort sorts slices keyed by hashes. Hash keys are spread evenly over their
// top bits, so a counting pass on those bits puts each element in its group in its
// final place (a group of about eight, or up to 2^maxBits groups a pass for a long
// slice, each grouped again by the bits below), and only the small groups are sorted by
// comparison: a fraction of a comparison sort's cost, whose every comparison of random
// keys is a coin toss for the branch predictor. Keys that are not spread evenly still
// sort correctly, in groups that are larger.
package hashsort

import (
	"math/bits"
	"slices"
)

// small is the length below which a comparison sort is as fast.
const small = 256

// Uint64s sorts hashes in increasing order.
func Uint64s(h []uint64) {
	byTopBits(h, func(x uint64) uint64 { return x }, slices.Sort[[]uint64], 64)
}

// Func sorts s by compare, which must order first by key: elements with different keys
// compare as their keys do.
func Func[T any](s []T, key func(T) uint64, compare func(a, b T) int) {
	byTopBits(s, key, func(g []T) { slices.SortFunc(g, compare) }, 64)
}

// maxBits bounds the groups of one pass. Each group's next free slot is written in
// turn, so 2^maxBits of them are the places one pass writes to at once: a few thousand
// stay in the cache, while with many more each move misses it and the pass loses to a
// comparison sort.
const maxBits = 11

// byTopBits groups s by the bits of key below the top 64-shift ones, which all of s
// shares, and sorts each group the same way on the bits below (with sort once it is
// short or the bits run out). Elements are moved to their groups in place (each
// displaced element goes on to its own group's next free slot), not into a copy, which
// would allocate as much as s.
func byTopBits[T any](s []T, key func(T) uint64, sort func([]T), shift int) {
	n := len(s)
	if n < small || shift == 0 {
		sort(s)
		return
	}
	b := min(bits.Len(uint(n/8)), maxBits, shift)
	shift -= b
	mask := uint64(1)<<b - 1
	start := make([]int, 1<<b+1) // start[g] is where group g begins in the sorted order
	for _, x := range s {
		start[key(x)>>shift&mask+1]++
	}
	for g := 1; g < len(start); g++ {
		start[g] += start[g-1]
	}
	next := slices.Clone(start[:1<<b]) // group g's first slot not yet holding one of its own
	for g := range 1 << b {
		for i := next[g]; i < start[g+1]; i = next[g] {
			x := s[i]
			for h := int(key(x) >> shift & mask); h != g; h = int(key(x) >> shift & mask) {
				x, s[next[h]] = s[next[h]], x
				next[h]++
			}
			s[i] = x
			next[g]++
		}
	}
	for g := range 1 << b {
		if start[g+1]-start[g] > 1 {
			byTopBits(s[start[g]:start[g+1]], key, sort, shift)
		}
	}
}
