package baseline

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/jaccard"
)

// Pair is two documents (indices into the sets given to Join, A < B) and their
// exact Jaccard similarity.
type Pair struct {
	A, B int32
	Sim  float64
}

// eps makes the filters' integer bounds conservative: t·|x| computed in floating
// point may land a hair above an integer it equals exactly, and rounding it up
// would wrongly shorten a prefix. Shortening the bound by eps only ever admits
// more candidates, and every candidate is verified exactly.
const eps = 1e-9

func ceilEps(v float64) int { return int(math.Ceil(v - eps)) }

// Join returns every pair of sets with jaccard.Similarity ≥ t (0 < t ≤ 1), sorted by
// (A, B), using workers goroutines (0: GOMAXPROCS).
//
// It is the AllPairs/PPJoin prefix-filtering self-join (Bayardo et al., WWW 2007;
// Xiao et al., WWW 2008): tokens are ordered by ascending global frequency, so each
// set's prefix holds its rarest tokens; two sets with Jaccard ≥ t must share a token
// within their prefixes, so only sets sharing a prefix token become candidates,
// found through an inverted index. Sets are processed by ascending size, so a set
// only needs partners at least t times its own size (length filter); the index
// holds only each set's shorter "mid" prefix, enough for partners no larger than
// itself; and the positional filter drops a candidate as soon as the tokens left
// after a match cannot reach the overlap that t requires. Survivors are verified
// with jaccard.Similarity on the original hash sets, so the result is exactly what a
// brute-force comparison of all pairs gives.
//
// Sets must be ascending and duplicate-free (as shingle.Hashes makes them). Two
// empty sets have similarity 1.0 (jaccard.Similarity) and are paired; an empty and a
// non-empty set are never similar.
func Join(sets [][]uint64, t float64, workers int) []Pair {
	if err := jaccard.CheckThreshold(t); err != nil {
		panic("baseline: threshold " + err.Error())
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var out []Pair
	var empty []int32
	for i, s := range sets {
		if len(s) == 0 {
			empty = append(empty, int32(i))
		}
	}
	for i, a := range empty {
		for _, b := range empty[i+1:] {
			out = append(out, Pair{a, b, 1.0})
		}
	}

	ix := newIndex(sets, t, workers)
	var mu sync.Mutex
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			p := newProber(ix)
			var local []Pair
			const batch = 64
			for {
				start := int(next.Add(batch)) - batch
				if start >= len(ix.order) {
					break
				}
				for x := start; x < min(start+batch, len(ix.order)); x++ {
					local = p.probe(int32(x), local)
				}
			}
			mu.Lock()
			out = append(out, local...)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.SortFunc(out, func(p, q Pair) int {
		return cmp.Or(cmp.Compare(p.A, q.A), cmp.Compare(p.B, q.B))
	})
	return out
}

// posting is one indexed occurrence: the set (by position in size order) and the
// token's position within that set in global token order.
type posting struct {
	doc, pos int32
}

// index is the prepared join. Sets are taken in ascending size order and
// re-expressed in the global token order. Tokens found in one set only (most
// shingles, in practice) come first in that order and can never be shared, so a
// set is kept as the number of such tokens it has (solo) and the ranks of its
// shared tokens, ascending: the shared token at index k has position solo+k. The
// inverted index of mid prefixes is in CSR form: postings of rank r are
// postings[start[r]:start[r+1]], ascending by doc, hence by size.
type index struct {
	t        float64
	sets     [][]uint64 // the caller's sets, for verification
	order    []int32    // position in size order → index into sets
	size     []int32    // by position in size order: |set|
	solo     []int32    // by position: tokens of the set found in no other set
	shared   [][]int32  // by position: ranks of the other tokens, ascending
	start    []int32
	postings []posting
}

func newIndex(sets [][]uint64, t float64, workers int) *index {
	ix := &index{t: t, sets: sets}
	total := 0
	for i, s := range sets {
		if len(s) > 0 {
			ix.order = append(ix.order, int32(i))
			total += len(s)
		}
	}
	slices.SortFunc(ix.order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(len(sets[a]), len(sets[b])), cmp.Compare(a, b))
	})
	n := len(ix.order)
	ix.size = make([]int32, n)
	for x, i := range ix.order {
		ix.size[x] = int32(len(sets[i]))
	}

	shared, freq := sharedTokens(sets, total, workers)
	// Ranks of shared tokens: ascending frequency, ties by hash (a counting sort,
	// stable over the hash order shared is in).
	byFreq := make([]int32, len(sets)+2)
	for _, f := range freq {
		byFreq[f+1]++
	}
	for f := 1; f < len(byFreq); f++ {
		byFreq[f] += byFreq[f-1]
	}
	rankOf := make(map[uint64]int32, len(shared))
	// Most tokens are solo, so most lookups would miss: a one-bit-per-slot filter
	// that fits in cache answers most of them without touching the map.
	filterBits := uint(20)
	for filterBits < 30 && 1<<filterBits < 16*len(shared) {
		filterBits++
	}
	filter := make([]uint64, 1<<filterBits/64)
	mask := uint64(1)<<filterBits - 1
	for d, f := range freq {
		h := shared[d]
		rankOf[h] = byFreq[f]
		byFreq[f]++
		filter[h&mask/64] |= 1 << (h & 63)
	}
	k := len(shared)
	shared, freq, byFreq = nil, nil, nil

	ix.solo = make([]int32, n)
	ix.shared = make([][]int32, n)
	parallel(n, workers, func(x int) {
		var rs []int32
		for _, h := range sets[ix.order[x]] {
			if filter[h&mask/64]&(1<<(h&63)) == 0 {
				continue
			}
			if r, ok := rankOf[h]; ok {
				rs = append(rs, r)
			}
		}
		slices.Sort(rs)
		ix.solo[x] = ix.size[x] - int32(len(rs))
		ix.shared[x] = rs
	})
	rankOf, filter = nil, nil

	ix.start = make([]int32, k+1)
	counts := ix.start[1:]
	for x, rs := range ix.shared {
		for _, r := range rs[:ix.inPrefix(x, ix.midPrefix(x))] {
			counts[r]++
		}
	}
	for r := 1; r < len(ix.start); r++ {
		ix.start[r] += ix.start[r-1]
	}
	ix.postings = make([]posting, ix.start[k])
	fill := slices.Clone(ix.start[:k])
	for x, rs := range ix.shared {
		for i, r := range rs[:ix.inPrefix(x, ix.midPrefix(x))] {
			ix.postings[fill[r]] = posting{int32(x), ix.solo[x] + int32(i)}
			fill[r]++
		}
	}
	return ix
}

// sharedTokens returns the tokens found in more than one set, ascending, and the
// number of sets each is found in. All occurrences are bucketed by their top byte
// and each bucket is sorted on its own, in parallel: cheaper and more predictable
// in memory than a map holding every distinct token, and the buckets fit in cache.
func sharedTokens(sets [][]uint64, total, workers int) (shared []uint64, freq []int32) {
	var start [257]int
	for _, s := range sets {
		for _, h := range s {
			start[h>>56+1]++
		}
	}
	for b := 1; b <= 256; b++ {
		start[b] += start[b-1]
	}
	all := make([]uint64, total)
	fill := start
	for _, s := range sets {
		for _, h := range s {
			all[fill[h>>56]] = h
			fill[h>>56]++
		}
	}
	var parts [256]struct {
		shared []uint64
		freq   []int32
	}
	parallel(256, workers, func(b int) {
		bucket := all[start[b]:start[b+1]]
		slices.Sort(bucket)
		p := &parts[b]
		for i := 0; i < len(bucket); {
			j := i + 1
			for j < len(bucket) && bucket[j] == bucket[i] {
				j++
			}
			if j-i > 1 {
				p.shared = append(p.shared, bucket[i])
				p.freq = append(p.freq, int32(j-i))
			}
			i = j
		}
	})
	for _, p := range parts {
		shared = append(shared, p.shared...)
		freq = append(freq, p.freq...)
	}
	return shared, freq
}

// inPrefix returns how many of x's shared tokens fall within its first p tokens.
func (ix *index) inPrefix(x, p int) int {
	return min(len(ix.shared[x]), max(0, p-int(ix.solo[x])))
}

// midPrefix is the indexing prefix length for a self-join in ascending size order:
// x is only ever found by sets y at least as large, and Jaccard ≥ t then needs an
// overlap of at least t/(1+t)·(|x|+|y|) ≥ 2t/(1+t)·|x| tokens, so the first
// |x| - ⌈2t/(1+t)·|x|⌉ + 1 tokens of x must hold a shared one.
func (ix *index) midPrefix(x int) int {
	n := int(ix.size[x])
	return min(n, n-ceilEps(2*ix.t/(1+ix.t)*float64(n))+1)
}

// probePrefix is |x| - ⌈t·|x|⌉ + 1: any set with Jaccard ≥ t to x shares a token
// with this prefix of x.
func (ix *index) probePrefix(x int) int {
	n := int(ix.size[x])
	return min(n, n-ceilEps(ix.t*float64(n))+1)
}

// prober holds one worker's candidate counters. count[y] is the overlap seen so
// far with y in the current probe, or -1 once the positional filter ruled y out.
type prober struct {
	ix      *index
	count   []int32
	touched []int32
}

func newProber(ix *index) *prober {
	return &prober{ix: ix, count: make([]int32, len(ix.order))}
}

// probe finds x's partners among the sets before it in size order and appends
// the verified pairs to out.
func (p *prober) probe(x int32, out []Pair) []Pair {
	ix := p.ix
	nx := int(ix.size[x])
	rx := ix.shared[x]
	solo := int(ix.solo[x])
	minSize := float64(nx)*ix.t - eps
	for k, r := range rx[:ix.inPrefix(int(x), ix.probePrefix(int(x)))] {
		i := solo + k // r's position in x
		ps := ix.postings[ix.start[r]:ix.start[r+1]]
		// Postings are in size order: skip those too small for x (length filter),
		// and stop at x itself (later sets find x when they probe).
		lo, _ := slices.BinarySearchFunc(ps, minSize, func(e posting, m float64) int {
			return cmp.Compare(float64(ix.size[e.doc]), m)
		})
		for _, e := range ps[lo:] {
			y := e.doc
			if y >= x {
				break
			}
			c := p.count[y]
			if c < 0 {
				continue
			}
			ny := int(ix.size[y])
			need := int32(ceilEps(ix.t / (1 + ix.t) * float64(nx+ny)))
			if c == 0 {
				p.touched = append(p.touched, y)
			}
			if c+1+int32(min(nx-i-1, ny-int(e.pos)-1)) < need {
				p.count[y] = -1 // positional filter: the rest cannot reach `need`
				continue
			}
			p.count[y] = c + 1
		}
	}
	a := ix.sets[ix.order[x]]
	for _, y := range p.touched {
		if p.count[y] > 0 {
			if s := jaccard.Similarity(a, ix.sets[ix.order[y]]); s >= ix.t {
				i, j := ix.order[x], ix.order[y]
				out = append(out, Pair{min(i, j), max(i, j), s})
			}
		}
		p.count[y] = 0
	}
	p.touched = p.touched[:0]
	return out
}

// parallel calls fn(i) for i in [0, n) on workers goroutines.
func parallel(n, workers int, fn func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, max(n, 1)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// BruteForce compares every pair: the reference Join is tested against.
func BruteForce(sets [][]uint64, t float64) []Pair {
	var out []Pair
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			if s := jaccard.Similarity(sets[i], sets[j]); s >= t {
				out = append(out, Pair{int32(i), int32(j), s})
			}
		}
	}
	return out
}
