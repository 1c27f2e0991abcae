package containment

import (
	"cmp"
	"math"
	"slices"

	"github.com/neardup/neardup/internal/hashsort"
)

// Join calls pair(i, j, sim) for every pair i < j of sets whose containment (Of) is at
// least t (0 < t ≤ 1), and returns how many pairs it compared. It decides a group of
// sets that share much (a large LSH bucket, where boilerplate puts thousands of sets
// that mostly do not contain one another) without comparing all their pairs.
//
// A set x can reach t in a partner y at least as large only if it shares ⌈t·|x|⌉ of
// its tokens with y. Of x's tokens found in another set, ordered rarest first within
// the group, y must then hold one of the first n - ⌈t·|x|⌉ + 1 (n: how many x has):
// the prefix filter, on the smaller set's side only. So each set meets only the larger
// sets that share a rare token with it, and those are compared exactly: the pairs
// reported are exactly those a comparison of all pairs reports.
//
// Sets must be ascending and duplicate-free. Pairs are reported in no fixed order.
func Join(sets [][]uint64, t float64, pair func(i, j int, sim float64)) (compared int64) {
	total := 0
	for _, s := range sets {
		total += len(s)
	}
	compared, _ = join(len(sets), total, func(i int) ([]uint64, error) { return sets[i], nil }, t, nil, pair)
	return compared
}

// JoinGroups is Join over the union of several groups of sets, reporting only the pairs
// of sets that share a group: exactly the pairs that a Join of each group alone reports,
// each once. groups[i] lists the groups of set i, ascending. Sets that recur in many
// groups (a document in many LSH buckets) are ranked and compared once, not once per
// group, and the prefix filter holds for any one order of the tokens, here their rarity
// over the union. The n sets are read one at a time (load(i) is set i, which need not
// stay valid after the next call) and not held: the pairs are compared on the ranks of
// their shared tokens; total, their summed sizes, sizes the one array that is held.
// It returns load's first error.
func JoinGroups(n, total int, load func(i int) ([]uint64, error), groups [][]int32, t float64, pair func(i, j int, sim float64)) (compared int64, err error) {
	return join(n, total, load, t, func(i, j int) bool { return shareAny(groups[i], groups[j]) }, pair)
}

// JoinBlocks is Join over n sets of which no more than about limit shingles are held
// at once: set i has size(i) shingles and is read by load(i) (valid until the next call).
// The sets are cut, in order, into blocks of at most limit/2 shingles (a larger set is a
// block alone), and every two blocks are joined together, admitting only the pairs that
// join alone does not already cover: each pair of sets is compared in exactly one join,
// so the pairs reported are exactly those of Join, each once, whatever limit is. A set
// is read once for each block it is joined with. It returns load's first error.
func JoinBlocks(n int, size func(i int) int, load func(i int) ([]uint64, error), limit int64, t float64, pair func(i, j int, sim float64)) (compared int64, err error) {
	// Block b holds the sets starts[b] to starts[b+1]-1, of totals[b] shingles.
	starts, totals := []int{0}, []int{0}
	for i := range n {
		s := size(i)
		if last := len(totals) - 1; totals[last] > 0 && int64(totals[last]+s) > limit/2 {
			starts, totals = append(starts, i), append(totals, s)
		} else {
			totals[last] += s
		}
	}
	starts = append(starts, n)
	k := len(totals)
	if k == 1 {
		return join(n, totals[0], load, t, nil, pair)
	}
	span := func(b int) (int, int, int) { return starts[b], starts[b+1], totals[b] }
	// Blocks a < b: the pairs across them, those inside a when b follows a, and those
	// inside the last block in its join with the one before it.
	for a := range k {
		for b := a + 1; b < k; b++ {
			a0, a1, ta := span(a)
			b0, b1, tb := span(b)
			na := a1 - a0
			global := func(i int) int {
				if i < na {
					return a0 + i
				}
				return b0 + i - na
			}
			inside := [2]bool{b == a+1, a == k-2 && b == k-1}
			admit := func(i, j int) bool {
				ia, ja := i < na, j < na
				switch {
				case ia != ja:
					return true
				case ia:
					return inside[0]
				default:
					return inside[1]
				}
			}
			c, err := join(na+b1-b0, ta+tb, func(i int) ([]uint64, error) { return load(global(i)) }, t, admit,
				func(i, j int, sim float64) { pair(global(i), global(j), sim) })
			compared += c
			if err != nil {
				return compared, err
			}
		}
	}
	return compared, nil
}

// shareAny reports whether two ascending lists share an element.
func shareAny(a, b []int32) bool {
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			a = a[1:]
		case a[0] > b[0]:
			b = b[1:]
		default:
			return true
		}
	}
	return false
}

// join is Join over n sets read by load, comparing only the pairs admit admits (all
// when admit is nil). A token two sets share is shared, so the intersection of their
// shared tokens' ranks is their intersection: Of without the sets.
func join(n, total int, load func(i int) ([]uint64, error), t float64, admit func(i, j int) bool, pair func(i, j int, sim float64)) (compared int64, err error) {
	ranks, postings, sizes, err := rankTokens(n, total, load)
	if err != nil {
		return 0, err
	}
	of := func(x, y int) float64 {
		if sizes[x] == 0 || sizes[y] == 0 {
			if sizes[x] == sizes[y] {
				return 1
			}
			return 0
		}
		return float64(intersect(ranks[x], ranks[y])) / float64(min(sizes[x], sizes[y]))
	}
	stamp := make([]int, n) // x+1 once y was met for x
	var empty []int
	for x := range n {
		lx := sizes[x]
		if lx == 0 {
			empty = append(empty, x)
			continue
		}
		// 1e-9 keeps a product that lands a hair above an integer from lengthening need.
		need := int(math.Ceil(t*float64(lx) - 1e-9))
		prefix := len(ranks[x]) - need + 1
		for _, r := range ranks[x][:max(0, min(prefix, len(ranks[x])))] {
			for _, y := range postings[r] {
				ly := sizes[y]
				if int(y) == x || ly < lx || ly == lx && int(y) < x || stamp[y] == x+1 {
					continue
				}
				stamp[y] = x + 1
				if admit != nil && !admit(x, int(y)) {
					continue
				}
				compared++
				if sim := of(x, int(y)); sim >= t {
					pair(min(x, int(y)), max(x, int(y)), sim)
				}
			}
		}
	}
	for i, x := range empty { // two empty sets contain each other (Of)
		for _, y := range empty[i+1:] {
			if admit != nil && !admit(x, y) {
				continue
			}
			compared++
			pair(x, y, 1)
		}
	}
	return compared, nil
}

// intersect returns how many elements two ascending lists share.
func intersect(a, b []int32) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// occurrence is one token of one set.
type occurrence struct {
	h uint64
	x int32
}

// rankTokens ranks the tokens found in more than one set by ascending frequency (ties
// by token) and returns, per set, the ranks of its shared tokens, ascending, and per
// rank the sets that hold the token, ascending. Every occurrence is sorted once by
// token, so the sets of a token lie together and are their posting list.
func rankTokens(n, total int, load func(i int) ([]uint64, error)) (ranks, postings [][]int32, sizes []int, err error) {
	sizes = make([]int, n)
	occ := make([]occurrence, 0, total)
	for x := range n {
		s, err := load(x)
		if err != nil {
			return nil, nil, nil, err
		}
		sizes[x] = len(s)
		for _, h := range s {
			occ = append(occ, occurrence{h, int32(x)})
		}
	}
	hashsort.Func(occ, func(o occurrence) uint64 { return o.h }, func(a, b occurrence) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return cmp.Compare(a.x, b.x)
	})
	xs := make([]int32, len(occ))
	type token struct{ start, end int32 } // occ[start:end] hold it
	var shared []token
	for i := 0; i < len(occ); {
		j := i + 1
		for j < len(occ) && occ[j].h == occ[i].h {
			j++
		}
		for k := i; k < j; k++ {
			xs[k] = occ[k].x
		}
		if j-i > 1 {
			shared = append(shared, token{int32(i), int32(j)})
		}
		i = j
	}
	slices.SortFunc(shared, func(a, b token) int {
		if c := cmp.Compare(a.end-a.start, b.end-b.start); c != 0 {
			return c
		}
		return cmp.Compare(occ[a.start].h, occ[b.start].h)
	})
	occ = nil
	ranks = make([][]int32, n)
	postings = make([][]int32, len(shared))
	for r, tk := range shared {
		postings[r] = xs[tk.start:tk.end:tk.end]
		for _, x := range postings[r] {
			ranks[x] = append(ranks[x], int32(r))
		}
	}
	return ranks, postings, sizes, nil
}
