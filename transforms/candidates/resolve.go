package candidates

import (
	"cmp"
	"slices"
)

// slack absorbs floating-point rounding in the triangle-inequality test, so that rounding
// can only keep a pair to compare, never rule out a true one.
const slack = 1e-9

// Resolution is what Resolve did with one bucket.
type Resolution struct {
	// Compared is the number of similarities computed: the bucket's cost.
	Compared int64
	// Unresolved is an upper bound on the pairs that were neither compared, nor ruled out
	// by the triangle inequality, nor joined in one cluster by the bucket's own edges:
	// the pairs left when the budget ran out, 0 when it did not.
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
// Resolve stops and counts the pairs of R that are in different clusters as Unresolved.
func Resolve(k int, threshold float64, budget int64, sim func(i, j int) float64) Resolution {
	var res Resolution
	parent := make([]int, k)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	compare := func(i, j int) (float64, bool) {
		res.Compared++
		s := sim(min(i, j), max(i, j))
		ok := s >= threshold
		if ok {
			if ri, rj := find(i), find(j); ri != rj {
				parent[max(ri, rj)] = min(ri, rj)
			}
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
	for len(rest) > 1 {
		p := rest[0]
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
		exhausted := false
		for _, c := range ring {
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
			}
			if exhausted {
				break
			}
		}
		if exhausted {
			break
		}
		rest = others
	}
	if len(rest) > 1 {
		res.Unresolved = crossPairs(rest, find)
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
