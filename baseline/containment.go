package baseline

import (
	"cmp"
	"runtime"
	"slices"

	"github.com/neardup/neardup/containment"
	"github.com/neardup/neardup/jaccard"
)

// Measures the baseline joins by.
const (
	MeasureJaccard     = "jaccard"
	MeasureContainment = "containment"
)

// ContainmentJoin returns every pair of sets whose containment (containment.Of: the
// intersection over the smaller set's size) is ≥ t, sorted by (A, B), using workers
// goroutines (0: GOMAXPROCS).
//
// A set x needs an overlap of ⌈t·|x|⌉ with a partner at least as large, so it must
// share one of its first |x| - ⌈t·|x|⌉ + 1 tokens with it, tokens taken rarest first
// (the prefix filter of Join, on x's side only: the larger partner's side has no useful
// bound). Each set probes an inverted index of every shared token with its prefix,
// and each partner found is verified with containment.Of, so the result is exactly
// what comparing all pairs gives.
func ContainmentJoin(sets [][]uint64, t float64, workers int) []Pair {
	if err := jaccard.CheckThreshold(t); err != nil {
		panic("baseline: threshold " + err.Error())
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	total := 0
	var empty []int32
	for i, s := range sets {
		total += len(s)
		if len(s) == 0 {
			empty = append(empty, int32(i))
		}
	}
	var out []Pair
	for i := range empty {
		for j := i + 1; j < len(empty); j++ {
			out = append(out, Pair{empty[i], empty[j], 1})
		}
	}
	shared, freq := sharedTokens(sets, total, workers)
	// Ranks by ascending frequency (ties by token): rank 0 is the rarest shared token.
	byFreq := make([]int32, len(shared))
	for i := range byFreq {
		byFreq[i] = int32(i)
	}
	slices.SortFunc(byFreq, func(a, b int32) int { return cmp.Or(cmp.Compare(freq[a], freq[b]), cmp.Compare(shared[a], shared[b])) })
	rank := make([]int32, len(shared))
	for r, i := range byFreq {
		rank[i] = int32(r)
	}
	ranks := make([][]int32, len(sets))
	parallel(len(sets), workers, func(x int) {
		for _, h := range sets[x] {
			if i, ok := slices.BinarySearch(shared, h); ok {
				ranks[x] = append(ranks[x], rank[i])
			}
		}
		slices.Sort(ranks[x])
	})
	postings := make([][]int32, len(shared))
	for x, rs := range ranks {
		for _, r := range rs {
			postings[r] = append(postings[r], int32(x))
		}
	}
	found := make([][]Pair, len(sets))
	seen := make([][]int32, workers)
	next := make(chan int, workers)
	for w := range workers {
		seen[w] = make([]int32, len(sets))
		next <- w
	}
	parallel(len(sets), workers, func(x int) {
		w := <-next
		defer func() { next <- w }()
		stamp := seen[w]
		need := ceilEps(t * float64(len(sets[x])))
		prefix := len(ranks[x]) - need + 1
		for _, r := range ranks[x][:min(len(ranks[x]), max(0, prefix))] {
			for _, y := range postings[r] {
				ly, lx := len(sets[y]), len(sets[x])
				if int(y) == x || ly < lx || ly == lx && int(y) < x || stamp[y] == int32(x)+1 {
					continue
				}
				stamp[y] = int32(x) + 1
				if s := containment.Of(sets[x], sets[y]); s >= t {
					found[x] = append(found[x], Pair{int32(min(x, int(y))), int32(max(x, int(y))), s})
				}
			}
		}
	})
	for _, f := range found {
		out = append(out, f...)
	}
	slices.SortFunc(out, func(p, q Pair) int { return cmp.Or(cmp.Compare(p.A, q.A), cmp.Compare(p.B, q.B)) })
	return out
}

// ContainmentBruteForce compares every pair: the reference ContainmentJoin is tested
// against.
func ContainmentBruteForce(sets [][]uint64, t float64) []Pair {
	var out []Pair
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			if s := containment.Of(sets[i], sets[j]); s >= t {
				out = append(out, Pair{int32(i), int32(j), s})
			}
		}
	}
	return out
}
