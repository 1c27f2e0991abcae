// Package lsh holds the banding arithmetic of MinHash LSH, compatible with
// datasketch 2.0's MinHashLSH: the choice of b bands × r rows for a threshold,
// the detection probability of a (b, r) scheme, and the per-band keys that put
// candidate documents in the same bucket.
//
// A signature of num_perm values is cut into b bands of r consecutive values;
// two documents become a candidate pair when all r values of at least one band
// agree, which happens with probability 1-(1-s^r)^b at Jaccard similarity s.
package lsh

import (
	"errors"
	"fmt"
	"math"

	"github.com/neardup/neardup/jaccard"
)

// Params is a banding scheme with its expected error areas.
type Params struct {
	Bands int // b
	Rows  int // r; Bands*Rows ≤ num_perm, the remaining values are unused
	// FalsePositive is ∫₀ᵗ P(candidate | s) ds: the area under the detection
	// curve below the threshold t.
	FalsePositive float64
	// FalseNegative is ∫ₜ¹ P(not candidate | s) ds: the area above the curve
	// from the threshold up.
	FalseNegative float64
}

// ErrTooFewBands is returned (wrapped) by OptimalParams when the best scheme
// has a single band. datasketch refuses that ("The number of bands are too
// small (b < 2)"), and so does neardup, to stay compatible.
var ErrTooFewBands = errors.New("lsh: the number of bands is too small (b < 2)")

// Detection returns the probability 1-(1-s^r)^b that two documents of Jaccard
// similarity s share at least one of b bands of r rows.
func Detection(s float64, b, r int) float64 {
	return 1 - math.Pow(1-math.Pow(s, float64(r)), float64(b))
}

// OptimalParams chooses (b, r) exactly as datasketch 2.0's _optimal_param does:
// for b = 1…numPerm and r = 1…⌊numPerm/b⌋ it minimizes
// fpWeight·FP + fnWeight·FN, FP = ∫₀ᵗ 1-(1-s^r)^b ds, FN = ∫ₜ¹ (1-s^r)^b ds,
// keeping the first minimum in (b ascending, r ascending) order.
//
// datasketch integrates with scipy.integrate.quad; the integrands are
// polynomials of degree r·b ≤ numPerm, so Gauss–Legendre quadrature with
// ⌊numPerm/2⌋+1 nodes computes them exactly (up to rounding), and the choice
// agrees with every vector recorded from datasketch (the closest recorded
// runner-up is 1.2e-5 relative away). The search prunes with lower bounds
// instead of scoring every (b, r), and returns what the exhaustive scan would.
//
// Validation follows datasketch's MinHashLSH constructor: weights each in [0, 1]
// summing to exactly 1.0, numPerm ≥ 2 (and, unlike datasketch, ≤ MaxNumPerm); the threshold must be in (0, 1] (0 would
// make every pair a candidate). When the optimum has b < 2 the returned Params
// hold that optimum and the error wraps ErrTooFewBands.
func OptimalParams(threshold float64, numPerm int, fpWeight, fnWeight float64) (Params, error) {
	if err := validate(threshold, numPerm, fpWeight, fnWeight); err != nil {
		return Params{}, err
	}
	best, _ := search(threshold, numPerm, fpWeight, fnWeight)
	if best.Bands < 2 {
		return best.Params, fmt.Errorf("%w: threshold %v with %d permutations is best served by "+
			"b=%d band of r=%d rows; use more permutations (num_perm) or a lower threshold",
			ErrTooFewBands, threshold, numPerm, best.Bands, best.Rows)
	}
	return best.Params, nil
}

// MaxNumPerm is the most permutations neardup accepts: well beyond any useful
// signature (the estimate's standard error at 8192 is under 0.006), and small enough
// that every computation sized by num_perm stays quick.
const MaxNumPerm = 8192

func validate(threshold float64, numPerm int, fpWeight, fnWeight float64) error {
	if err := jaccard.CheckThreshold(threshold); err != nil {
		return fmt.Errorf("lsh: threshold %w", err)
	}
	if numPerm < 2 {
		return fmt.Errorf("lsh: num_perm %d: too few permutation functions (need at least 2)", numPerm)
	}
	if numPerm > MaxNumPerm {
		return fmt.Errorf("lsh: num_perm %d: more than the maximum of %d permutation functions", numPerm, MaxNumPerm)
	}
	for _, w := range []float64{fpWeight, fnWeight} {
		if !(w >= 0 && w <= 1) {
			return fmt.Errorf("lsh: weight %v must be in [0, 1]", w)
		}
	}
	// datasketch checks sum(weights) != 1.0 exactly; so does this, so that the
	// same weights are accepted or refused by both.
	if fpWeight+fnWeight != 1.0 {
		return fmt.Errorf("lsh: weights %v and %v must sum to 1.0", fpWeight, fnWeight)
	}
	return nil
}

// FalsePositive returns ∫₀ᵗ 1-(1-s^r)^b ds, datasketch's false positive
// probability of (b, r) at threshold t.
func FalsePositive(threshold float64, b, r int) float64 {
	q := newQuadrature((b*r)/2 + 1)
	fp, _ := q.areas(threshold, r, []int{b})
	return fp[0]
}

// FalseNegative returns ∫ₜ¹ (1-s^r)^b ds, datasketch's false negative
// probability of (b, r) at threshold t.
func FalseNegative(threshold float64, b, r int) float64 {
	q := newQuadrature((b*r)/2 + 1)
	_, fn := q.areas(threshold, r, []int{b})
	return fn[0]
}

// quadrature integrates (1-s^r)^b over [0, t] and [t, 1] with fixed
// Gauss–Legendre nodes.
type quadrature struct {
	nodes, weights []float64
	lo, hi         []float64 // log1p(-s^r) at the nodes mapped to [0,t] and [t,1]
	t              float64   // the threshold and rows prepare last set
	r              int
}

func newQuadrature(n int) *quadrature {
	nodes, weights := gaussLegendre(n)
	return &quadrature{nodes: nodes, weights: weights,
		lo: make([]float64, n), hi: make([]float64, n)}
}

// prepare sets the threshold t and rows r that area integrates for.
func (q *quadrature) prepare(t float64, r int) {
	q.t, q.r = t, r
	halfLo, halfHi := t/2, (1-t)/2
	for i, x := range q.nodes {
		q.lo[i] = math.Log1p(-math.Pow(halfLo*x+halfLo, float64(r)))
		q.hi[i] = math.Log1p(-math.Pow(halfHi*x+halfHi+t, float64(r)))
	}
}

// area returns FP = ∫₀ᵗ 1-(1-s^r)^b ds and FN = ∫ₜ¹ (1-s^r)^b ds for the t and r of
// the last prepare. (1-x)^b is evaluated as exp(b·log1p(-x)), which is accurate to a
// few ulps wherever the value matters and shares the logarithm among all b.
func (q *quadrature) area(b int) (fp, fn float64) {
	fb := float64(b)
	var sumLo, sumHi float64
	for i, w := range q.weights {
		// 1-(1-s^r)^b = -expm1(b·log1p(-s^r)) without cancellation near 0.
		sumLo += w * -math.Expm1(fb*q.lo[i])
		sumHi += w * math.Exp(fb*q.hi[i])
	}
	return q.t / 2 * sumLo, (1 - q.t) / 2 * sumHi
}

// areas returns area(b) for each b in bs at threshold t and r rows.
func (q *quadrature) areas(t float64, r int, bs []int) (fp, fn []float64) {
	q.prepare(t, r)
	fp = make([]float64, len(bs))
	fn = make([]float64, len(bs))
	for j, b := range bs {
		fp[j], fn[j] = q.area(b)
	}
	return fp, fn
}
