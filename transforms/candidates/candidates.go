// Package candidates turns the members of one LSH bucket into the candidate pairs that
// exact verification will decide, and accounts for the pairs it leaves unchecked.
//
// It is pure Go with no Beam dependency: the pipeline's bucketing stage groups band
// entries by band key, keeps one id per distinct shingle set (exact duplicates are joined
// before LSH), and hands each bucket's ids to Pairs.
//
// # The guarantee and its bound
//
// A bucket of k distinct sets with k ≤ maxAll gives all k(k-1)/2 pairs, so every pair
// that shares such a bucket is verified: any two members whose exact Jaccard reaches the
// threshold end in one cluster, whatever else is in the bucket and whatever the ids are.
//
// Star edges alone (from the smallest id to every other member) do not give that: when
// the hub a fails against b and c, the true pair b–c is never checked. Nor does
// re-starring the members the hub failed to verify around their own smallest id: b may
// pass against a while c fails, yet J(b, c) ≥ t (Jaccard distance is a metric, so
// d(a, c) can reach 2(1-t) while d(a, b) and d(b, c) are ≤ 1-t), and b–c is never
// checked. Finding every true pair of a bucket is quadratic in the worst case (a bucket
// whose only true pair is its last needs all pairs), so exactness needs a bound.
//
// A bucket of more than maxAll distinct sets — boilerplate, templates, a page copied
// with small edits hundreds of thousands of times — gets star edges from its smallest
// id: k-1 candidates, never k². Its members are reported (Pairs returns star=true) so
// that, once clusters are known, Unresolved counts the pairs that were neither compared
// nor joined in one cluster: the only pairs of that bucket that can be missed. For the
// common large bucket (near-copies that all pass against the hub) that count is 0.
package candidates

import (
	"slices"
)

// DefaultMaxAll is the largest bucket (in distinct shingle sets) that gets all pairs:
// 4,950 candidates at most. Measured on the generated 100k corpus and on 12k Go source
// files, no bucket at threshold 0.7–0.9 came near it except the copies of boilerplate
// that star edges already verify (see BENCHMARKS.md).
const DefaultMaxAll = 100

// Pairs calls emit(u, v) with u < v for the candidate pairs of one bucket whose distinct
// sets have the ids in ids (at most one id per set, in any order; ids is sorted in
// place). Buckets of at most maxAll members give every pair; larger ones star edges from
// the smallest id, and star is true. It returns the number of pairs emitted.
func Pairs(ids []string, maxAll int, emit func(u, v string)) (n int, star bool) {
	k := len(ids)
	if k < 2 {
		return 0, false
	}
	slices.Sort(ids)
	if k <= maxAll {
		for i := 0; i < k; i++ {
			for j := i + 1; j < k; j++ {
				emit(ids[i], ids[j])
			}
		}
		return k * (k - 1) / 2, false
	}
	for _, id := range ids[1:] {
		emit(ids[0], id)
	}
	return k - 1, true
}

// Unresolved counts the pairs of a star-edged bucket that may have been missed: pairs
// whose members ended in different clusters and were never compared. labels holds each
// member's final cluster label (its own id when it is in no cluster) and hub is the index
// of the bucket's smallest id, the star's centre. A pair in one cluster is found, whether
// or not it was compared; a pair with the hub was compared, so if its members are in
// different clusters it was verified to be below the threshold. Every other pair across
// clusters is unresolved.
func Unresolved(labels []string, hub int) int64 {
	sizes := map[string]int64{}
	for _, l := range labels {
		sizes[l]++
	}
	k := int64(len(labels))
	across := k * (k - 1) / 2
	for _, n := range sizes {
		across -= n * (n - 1) / 2
	}
	// The hub was compared with every member outside its cluster.
	return across - (k - sizes[labels[hub]])
}
