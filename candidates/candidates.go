// Package candidates decides which pairs of one LSH bucket are compared, so that every
// pair that shares a bucket and reaches the threshold ends in one cluster, at a cost
// bounded on skew.
//
// It is pure Go with no Beam dependency: the pipeline's bucketing stage groups band
// entries by band key, keeps one id per distinct shingle set (exact duplicates are joined
// before LSH), and hands each bucket's ids to Pairs; Verify hands the larger buckets'
// shingle sets to Resolve.
//
// # The guarantee and its bound
//
// A bucket of k distinct sets with k ≤ maxAll gives all k(k-1)/2 pairs, so every pair
// that shares such a bucket is verified.
//
// A larger bucket — boilerplate, templates, a page copied with small edits hundreds of
// thousands of times — cannot afford k² comparisons. Star edges from its smallest id (k-1
// comparisons) lose pairs: when the hub a fails against b and c, the true pair b–c is
// never checked. Re-starring the members the hub failed around their own smallest id
// still loses some: b may pass against a while c fails, yet J(b, c) ≥ t. Resolve closes
// that hole with the triangle inequality of the Jaccard distance d = 1-J: after the
// pivot's comparisons, a pair b–c can be true only if |d(a,b) - d(a,c)| ≤ 1-t, and those
// few pairs are compared. It is exact, and near-copies cost about k comparisons; the
// worst case (a bucket of mutually distant sets) is still quadratic, so Resolve takes a
// budget and counts the pairs it left undecided when the budget ran out (never compared,
// not joined: exact, and an upper bound on the true pairs missed).
package candidates

import (
	"slices"
)

// DefaultMaxAll is the largest bucket (in distinct shingle sets) that gets all pairs:
// 190 candidates at most. Pairs go through the pipeline's pair path, which removes the
// pairs several bands propose; a larger bucket's members travel once each to Resolve,
// which compares a family of near-copies about once per member. Small, since a bucket
// of near-copies costs about k comparisons through Resolve and k²/2 as all pairs, with
// the same clusters either way.
const DefaultMaxAll = 20

// DefaultComparisons is Resolve's default budget per distinct set of a bucket (see
// Budget): near-copy families cost about 1–2 per set, so it leaves them a wide margin.
const DefaultComparisons = 64

// BudgetFloor is the bucket size below which Budget counts as if the bucket had this many
// sets. A bucket of a few hundred mutually distant sets (short or templated documents
// colliding in a band) needs all its pairs, and at 64 per set 8,192 sets' worth of
// comparisons is every pair of a bucket of up to 1,024 sets.
const BudgetFloor = 8192

// Budget is Resolve's budget for a bucket of k distinct sets: perSet comparisons per
// set, counting at least floor sets.
func Budget(k, perSet, floor int) int64 { return int64(perSet) * int64(max(k, floor)) }

// Pairs calls emit(u, v) with u < v for every pair of one bucket of at most maxAll
// distinct sets, whose ids are in ids (at most one id per set, in any order; ids is
// sorted in place), and returns how many it emitted and all = true. A larger bucket
// emits nothing (all = false): it is for Resolve.
func Pairs(ids []string, maxAll int, emit func(u, v string)) (n int, all bool) {
	k := len(ids)
	slices.Sort(ids)
	if k > maxAll {
		return 0, false
	}
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			emit(ids[i], ids[j])
		}
	}
	return k * (k - 1) / 2, true
}
