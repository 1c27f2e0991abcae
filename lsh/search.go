package lsh

import "math"

// candidate is a scored (b, r).
type candidate struct {
	Params
	Error float64 // fpWeight·FP + fnWeight·FN
}

// before orders candidates as datasketch's scan keeps them: smaller error first, ties
// to the one met first in (b ascending, r ascending) order.
func (c candidate) before(d candidate) bool {
	if c.Error != d.Error {
		return c.Error < d.Error
	}
	return c.Bands < d.Bands || c.Bands == d.Bands && c.Rows < d.Rows
}

// slack widens a pruning bound by far more than the rounding of the areas, so that a
// scheme is skipped only when its lower bound is clearly worse.
const slack = 1 + 1e-9

// searcher finds the two best (b, r) without scoring them all. It relies on two
// monotonicities of the areas: FP(b, r) grows with b and falls with r, FN(b, r) falls
// with b and grows with r. So for b in [a, c] at fixed r, fpWeight·FP(a, r) +
// fnWeight·FN(c, r) bounds the error from below, and whole ranges of b and of r are
// skipped once that bound exceeds the runner-up's error.
type searcher struct {
	q            *quadrature
	t            float64
	n            int
	wfp, wfn     float64
	best, second candidate
	evaluated    int                  // schemes scored, for the tests
	rowsNow      int                  // the rows q is prepared for
	scored       map[[2]int]candidate // by (b, r)
}

// search returns the best scheme and the runner-up (the second smallest error, ties
// again broken by (b, r) order): exactly what scoring every (b, r) with b·r ≤ numPerm
// in datasketch's b-major order would return.
func search(threshold float64, numPerm int, fpWeight, fnWeight float64) (best, second candidate) {
	s := newSearcher(threshold, numPerm, fpWeight, fnWeight)
	s.run()
	return s.best, s.second
}

func newSearcher(threshold float64, numPerm int, fpWeight, fnWeight float64) *searcher {
	s := &searcher{q: newQuadrature(numPerm/2 + 1), t: threshold, n: numPerm, wfp: fpWeight, wfn: fnWeight,
		scored: map[[2]int]candidate{}}
	s.best.Error, s.second.Error = math.Inf(1), math.Inf(1)
	return s
}

func (s *searcher) run() {
	// The optima of each error alone (b=1, r=n for FP, b=n, r=1 for FN) first, so that
	// the bounds are tight from the start whatever the weights.
	for _, br := range [][2]int{{1, s.n}, {1, s.n - 1}, {s.n, 1}, {s.n / 2, 1}} {
		s.score(br[0], br[1])
	}
	r0 := startRows(s.t, s.n)
	// Down from r0: FP(1, r) bounds every b at r and at all fewer rows.
	for r := r0; r >= 1; r-- {
		if s.skip(s.wfp*fpOneBand(s.t, r), 1, 1) {
			break
		}
		if s.skip(s.rowBound(r), 1, r) {
			continue
		}
		s.rows(r)
	}
	// Up from r0: FP(1, r) bounds every b at r, FN(⌊n/r⌋, r) every b at r and at all
	// more rows.
	for r := r0 + 1; r <= s.n; r++ {
		if s.skip(s.rowBound(r), 1, r) {
			continue
		}
		last := s.score(s.n/r, r)
		if s.skip(s.wfn*last.FalseNegative, 1, r) {
			break
		}
		s.rows(r)
	}
}

// rowBound bounds the error of every b at r rows from below in closed form:
// FP(b, r) ≥ FP(1, r), and FN(b, r) ≥ (1-t) - b·(1-t^(r+1))/(r+1) since
// (1-x)^b ≥ 1-bx.
func (s *searcher) rowBound(r int) float64 {
	b := float64(s.n / r)
	fn := (1 - s.t) - b*(1-math.Pow(s.t, float64(r+1)))/float64(r+1)
	return s.wfp*fpOneBand(s.t, r) + s.wfn*max(0, fn)
}

// fpOneBand is FP(1, r) = ∫₀ᵗ s^r ds in closed form.
func fpOneBand(t float64, r int) float64 {
	return math.Pow(t, float64(r+1)) / float64(r+1)
}

// skip reports whether schemes whose error is at least lb, none of them ordered
// before (minB, minR), can be left out: none of them can beat the runner-up.
func (s *searcher) skip(lb float64, minB, minR int) bool {
	if lb > s.second.Error*slack {
		return true
	}
	// Exact ties (errors that are exactly 0, say) go to the earliest (b, r).
	return lb >= s.second.Error && (minB > s.second.Bands || minB == s.second.Bands && minR > s.second.Rows)
}

// rows searches b in [1, ⌊n/r⌋] at r rows.
func (s *searcher) rows(r int) {
	s.refine(s.score(1, r), s.score(s.n/r, r))
}

// refine searches the b strictly between a and c (both scored, same rows), halving
// the range and leaving out halves whose lower bound cannot beat the runner-up.
func (s *searcher) refine(a, c candidate) {
	if c.Bands-a.Bands <= 1 || s.skip(s.wfp*a.FalsePositive+s.wfn*c.FalseNegative, a.Bands+1, a.Rows) {
		return
	}
	m := s.score((a.Bands+c.Bands)/2, a.Rows)
	// The half with the smaller bound first, so the runner-up tightens sooner.
	if s.wfp*a.FalsePositive+s.wfn*m.FalseNegative <= s.wfp*m.FalsePositive+s.wfn*c.FalseNegative {
		s.refine(a, m)
		s.refine(m, c)
	} else {
		s.refine(m, c)
		s.refine(a, m)
	}
}

// score computes (b, r) and ranks it against the best two, once per scheme.
func (s *searcher) score(b, r int) candidate {
	if c, ok := s.scored[[2]int{b, r}]; ok {
		return c
	}
	if s.rowsNow != r {
		s.q.prepare(s.t, r)
		s.rowsNow = r
	}
	fp, fn := s.q.area(b)
	c := candidate{Params: Params{Bands: b, Rows: r, FalsePositive: fp, FalseNegative: fn}, Error: fp*s.wfp + fn*s.wfn}
	s.scored[[2]int{b, r}] = c
	s.evaluated++
	switch {
	case c.before(s.best):
		s.best, s.second = c, s.best
	case c.before(s.second):
		s.second = c
	}
	return c
}

// startRows guesses the rows of the optimum, to tighten the bounds early: the r whose
// scheme of ⌊n/r⌋ bands has its detection midpoint (1/b)^(1/r) nearest the threshold.
func startRows(t float64, n int) int {
	best, bestDist := 1, math.Inf(1)
	for r := 1; r <= n; r++ {
		mid := math.Pow(1/float64(n/r), 1/float64(r))
		if d := math.Abs(mid - t); d < bestDist {
			best, bestDist = r, d
		}
	}
	return best
}
