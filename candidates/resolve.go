package candidates

import (
	"cmp"
	"slices"

	"github.com/neardup/neardup/internal/unionfind"
)

// slack absorbs floating-point rounding in the triangle-inequality test, so that rounding
// can only keep a pair to compare, never rule out a true one.
const slack = 1e-9

// Resolution is what Resolve did with one bucket.
type Resolution struct {
	// Compared is the number of similarities computed: the bucket's cost.
	Compared int64
	// Unresolved is the number of pairs left undecided when the budget ran out, 0 when it
	// did not: the pairs of members not yet taken apart (see Resolve) that were never
	// compared and are not joined in one cluster by the bucket's own edges. It is exact
	// for that definition and an upper bound on the true pairs missed. It does not
	// subtract pairs between two such members that the similarities already computed
	// would rule out by the triangle inequality (through a pivot whose round was cut
	// short, or one whose ball held neither): finding those needs every pivot's
	// similarities kept until the end, memory the budget is there to bound.
	Unresolved int64
}

// Resolve finds the true pairs of one LSH bucket too large for all pairs, bounded by a
// budget of similarity computations. Its members are 0..k-1 (the caller orders them by
// id, so the result depends on nothing else); sim(i, j) is their similarity, whose
// complement 1-sim must be a metric (Jaccard distance, and the share of disagreeing
// MinHash slots, both are); a pair is true when sim ≥ threshold. sim is called once per
// comparison, with i < j, and is where the caller records each verdict.
//
// When the budget suffices, every true pair of the bucket ends in one cluster of the
// edges Resolve accepts. The members left undecided, R (at first all), are taken apart
// pivot by pivot. The pivot p, R's first member, is compared with every other member x of
// R, giving d(x) = 1 - sim(p, x). Its ball B — p and the x with d(x) ≤ ε = 1-threshold —
// is one cluster through p, so no pair inside B needs a comparison. A pair of b in B and c
// outside can be true only if |d(b) - d(c)| ≤ d(b, c) ≤ ε (triangle inequality), that is
// only for c in the ring ε < d(c) ≤ 2ε and b with d(b) ≥ d(c) - ε; those are compared,
// farthest b from p first, until c joins B's cluster (one accepted edge is enough: B is
// already one cluster). Every pair with a member in B is then decided, and R loses B.
//
// A family of near-copies costs about k comparisons (one pivot whose ball is nearly
// everything), where all pairs cost k²/2; a bucket of mutually distant sets costs up to
// k²/2, which the budget bounds. When the next comparison would exceed the budget,
// Resolve stops and counts the pairs of R that it neither compared nor joined as
// Unresolved; a pivot's ball is taken apart (leaves R) only when its round is complete.
func Resolve(k int, threshold float64, budget int64, sim func(i, j int) float64) Resolution {
	return resolve(k, threshold, budget, sim, nil)
}

// resolve is Resolve; takenApart, when not nil, is told each pivot's ball (pivot first)
// as it leaves R, so that a test can check which pairs Unresolved must count.
func resolve(k int, threshold float64, budget int64, sim func(i, j int) float64, takenApart func(ball []int)) Resolution {
	var res Resolution
	forest := unionfind.New(k)
	find := forest.Find
	compare := func(i, j int) (float64, bool) {
		res.Compared++
		s := sim(min(i, j), max(i, j))
		ok := s >= threshold
		if ok {
			forest.Union(i, j)
		}
		return s, ok
	}
	eps := 1 - threshold
	rest := make([]int, k)
	for i := range rest {
		rest[i] = i
	}
	type near struct {
		m int
		s float64 // similarity to the pivot
	}
	var ball, ring []near
	// failed[i] is how many ball members ring[i] was compared with, all of them failing
	// unless ring[i] joined the ball's cluster.
	var failed []int64
	exhausted, p := false, 0
	for len(rest) > 1 {
		p = rest[0]
		if res.Compared+int64(len(rest)-1) > budget {
			break
		}
		ball, ring = ball[:0], ring[:0]
		var others []int
		for _, x := range rest[1:] {
			s, ok := compare(p, x)
			switch {
			case ok:
				ball = append(ball, near{x, s})
			case 1-s <= 2*eps+slack:
				ring = append(ring, near{x, s})
				others = append(others, x)
			default:
				others = append(others, x)
			}
		}
		// Farthest first: a ring member is most likely within ε of the ball's edge.
		slices.SortStableFunc(ball, func(a, b near) int { return cmp.Compare(a.s, b.s) })
		failed = failed[:0]
		for _, c := range ring {
			failed = append(failed, 0)
			if find(c.m) == find(p) {
				continue // joined to the ball's cluster in an earlier round
			}
			for _, b := range ball {
				if b.s-c.s > eps+slack {
					break // this b and all after it are more than ε from c
				}
				if res.Compared >= budget {
					exhausted = true
					break
				}
				if _, ok := compare(b.m, c.m); ok {
					break
				}
				failed[len(failed)-1]++
			}
			if exhausted {
				break
			}
		}
		if exhausted {
			break
		}
		if takenApart != nil {
			members := []int{p}
			for _, b := range ball {
				members = append(members, b.m)
			}
			takenApart(members)
		}
		rest = others
	}
	if len(rest) > 1 {
		res.Unresolved = crossPairs(rest, find)
	}
	if exhausted {
		// The cut round compared p with every other member of R and each ring member with
		// a prefix of the ball (all in p's cluster): those pairs are decided unless a
		// later edge joined them, which crossPairs already left out.
		rp := find(p)
		for _, x := range rest[1:] {
			if find(x) != rp {
				res.Unresolved--
			}
		}
		for i, c := range ring[:len(failed)] {
			if find(c.m) != rp {
				res.Unresolved -= failed[i]
			}
		}
	}
	return res
}

// crossPairs counts the pairs of members that are in different clusters.
func crossPairs(members []int, find func(int) int) int64 {
	sizes := map[int]int64{}
	for _, m := range members {
		sizes[find(m)]++
	}
	n := int64(len(members))
	across := n * (n - 1) / 2
	for _, c := range sizes {
		across -= c * (c - 1) / 2
	}
	return across
}
