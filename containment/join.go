package containment

import (
	"cmp"
	"math"
	"slices"
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
	tokens, freq := sharedTokens(sets)
	// rank[i] orders tokens[i] by ascending frequency, ties by token.
	byFreq := make([]int32, len(tokens))
	for i := range byFreq {
		byFreq[i] = int32(i)
	}
	slices.SortFunc(byFreq, func(a, b int32) int {
		if c := cmp.Compare(freq[a], freq[b]); c != 0 {
			return c
		}
		return cmp.Compare(tokens[a], tokens[b])
	})
	rank := make([]int32, len(tokens))
	for r, i := range byFreq {
		rank[i] = int32(r)
	}
	ranks := make([][]int32, len(sets))
	postings := make([][]int32, len(tokens))
	for x, s := range sets {
		for _, h := range s {
			if i, ok := slices.BinarySearch(tokens, h); ok {
				ranks[x] = append(ranks[x], rank[i])
				postings[rank[i]] = append(postings[rank[i]], int32(x))
			}
		}
		slices.Sort(ranks[x])
	}
	stamp := make([]int, len(sets)) // x+1 once y was met for x
	var empty []int
	for x, s := range sets {
		if len(s) == 0 {
			empty = append(empty, x)
			continue
		}
		// 1e-9 keeps a product that lands a hair above an integer from lengthening need.
		need := int(math.Ceil(t*float64(len(s)) - 1e-9))
		prefix := len(ranks[x]) - need + 1
		for _, r := range ranks[x][:max(0, min(prefix, len(ranks[x])))] {
			for _, y := range postings[r] {
				ly := len(sets[y])
				if int(y) == x || ly < len(s) || ly == len(s) && int(y) < x || stamp[y] == x+1 {
					continue
				}
				stamp[y] = x + 1
				compared++
				if sim := Of(s, sets[y]); sim >= t {
					pair(min(x, int(y)), max(x, int(y)), sim)
				}
			}
		}
	}
	for i, x := range empty { // two empty sets contain each other (Of)
		for _, y := range empty[i+1:] {
			compared++
			pair(x, y, 1)
		}
	}
	return compared
}

// sharedTokens returns the tokens found in more than one of the sets, ascending, and
// how many sets hold each.
func sharedTokens(sets [][]uint64) (tokens []uint64, freq []int32) {
	n := 0
	for _, s := range sets {
		n += len(s)
	}
	all := make([]uint64, 0, n)
	for _, s := range sets {
		all = append(all, s...)
	}
	slices.Sort(all)
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j] == all[i] {
			j++
		}
		if j-i > 1 {
			tokens = append(tokens, all[i])
			freq = append(freq, int32(j-i))
		}
		i = j
	}
	return tokens, freq
}
