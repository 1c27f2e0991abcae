package candidates_test

import (
	"fmt"

	"github.com/neardup/neardup/candidates"
	"github.com/neardup/neardup/jaccard"
)

// A bucket of up to maxAll distinct sets gives all its pairs (Pairs); a larger one is
// resolved from its members' sets within a budget (Resolve), and sim is where each
// verdict is recorded. Here four near-copies and one outlier share a bucket above
// maxAll = 3. Resolve compares the pivot a with the four others (4 comparisons, not
// the 10 pairs): b, c and d fall in a's ball, so b-c, b-d and c-d, true pairs too, are
// already in a's cluster, and e is too far from a to be a true pair with any of them.
func Example() {
	const threshold, maxAll = 0.6, 3
	ids := []string{"e", "b", "d", "a", "c"}
	sets := map[string][]uint64{
		"a": {1, 2, 3, 4, 5},
		"b": {1, 2, 3, 4, 6},
		"c": {1, 2, 3, 4, 5, 6},
		"d": {1, 2, 3, 4, 5, 7},
		"e": {10, 11, 12},
	}
	n, all := candidates.Pairs(ids, maxAll, func(u, v string) { fmt.Println("pair", u, v) })
	fmt.Println("pairs emitted:", n, "all:", all)
	if !all {
		// ids is now sorted: member i is ids[i], and the smallest id comes first.
		res := candidates.Resolve(len(ids), threshold, candidates.Budget(len(ids), candidates.DefaultComparisons, 0),
			func(i, j int) float64 {
				sim := jaccard.Similarity(sets[ids[i]], sets[ids[j]])
				if sim >= threshold {
					fmt.Printf("edge %s-%s %.2f\n", ids[i], ids[j], sim)
				}
				return sim
			})
		fmt.Println("compared:", res.Compared, "unresolved:", res.Unresolved)
	}
	// Output:
	// pairs emitted: 0 all: false
	// edge a-b 0.67
	// edge a-c 0.83
	// edge a-d 0.83
	// compared: 4 unresolved: 0
}

// A bucket small enough for all its pairs: each pair once, the smaller id first.
func ExamplePairs() {
	n, all := candidates.Pairs([]string{"c", "a", "b"}, candidates.DefaultMaxAll, func(u, v string) {
		fmt.Println(u, v)
	})
	fmt.Println(n, all)
	// Output:
	// a b
	// a c
	// b c
	// 3 true
}
