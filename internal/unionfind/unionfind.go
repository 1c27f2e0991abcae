// Package unionfind is the disjoint-set forest the deciding steps share: clusters of
// verified pairs, exact duplicates under containment, and the balls of a large bucket.
package unionfind

// Forest partitions the elements 0..Len()-1 into disjoint sets. Each set is named by
// its root, which the union rule chooses, so that a set's name does not depend on the
// order in which its pairs were joined.
type Forest struct{ parent []int }

// New returns a forest of n singletons.
func New(n int) *Forest {
	f := &Forest{}
	f.Grow(n)
	return f
}

// Grow adds singletons until the forest holds n elements.
func (f *Forest) Grow(n int) {
	for len(f.parent) < n {
		f.parent = append(f.parent, len(f.parent))
	}
}

// Len is the number of elements.
func (f *Forest) Len() int { return len(f.parent) }

// Find returns the root of x's set, halving the path on the way.
func (f *Forest) Find(x int) int {
	for f.parent[x] != x {
		f.parent[x] = f.parent[f.parent[x]]
		x = f.parent[x]
	}
	return x
}

// Union joins the sets of x and y under the smaller of their roots, and reports whether
// they were apart.
func (f *Forest) Union(x, y int) bool {
	return f.UnionFunc(x, y, func(a, b int) bool { return a < b })
}

// UnionFunc joins the sets of x and y under the root that less orders first, and
// reports whether they were apart.
func (f *Forest) UnionFunc(x, y int, less func(a, b int) bool) bool {
	rx, ry := f.Find(x), f.Find(y)
	if rx == ry {
		return false
	}
	if less(ry, rx) {
		rx, ry = ry, rx
	}
	f.parent[ry] = rx
	return true
}
