package lsh

import (
	"fmt"
	"math"
)

// Recall-first defaults: a pair this far above the threshold must become a candidate
// with at least this probability.
const (
	DefaultRecallMargin = 0.05
	DefaultRecallTarget = 0.99
)

// RecallParams chooses (b, r) for a pipeline that verifies every candidate exactly: a
// false candidate then costs only a comparison, while a missed one is a duplicate left
// in the corpus. Among the schemes with b ≥ 2, b·r ≤ numPerm and
// Detection(min(1, threshold+margin)) ≥ target it takes the one with the smallest
// false-positive area (then fewer bands, so fewer shuffled elements). datasketch's
// OptimalParams weighs both errors equally instead, which at threshold 0.8 and 128
// permutations detects a 0.85-similar pair only 69% of the time.
func RecallParams(threshold float64, numPerm int, margin, target float64) (Params, error) {
	if err := validate(threshold, numPerm, 0.5, 0.5); err != nil {
		return Params{}, err
	}
	if !(target > 0 && target < 1) || !(margin >= 0 && margin < 1) {
		return Params{}, fmt.Errorf("lsh: recall target %v must be in (0, 1) and margin %v in [0, 1)", target, margin)
	}
	s := min(1, threshold+margin)
	// At each r the fewest bands that meet the target have the smallest FP, since FP
	// grows with b; and FP(b, r) ≥ FP(2, r) = 2t^(r+1)/(r+1) - t^(2r+1)/(2r+1), which
	// falls as r grows, so going down from the most rows the search stops at the
	// first r whose bound exceeds the best FP found.
	q := newQuadrature(numPerm/2 + 1)
	var best Params
	found := false
	for r := numPerm / 2; r >= 1; r-- {
		b := 2
		for b*r <= numPerm && Detection(s, b, r) < target {
			b++
		}
		if b*r > numPerm {
			continue
		}
		if found && fpTwoBands(threshold, r) > best.FalsePositive*slack {
			break
		}
		q.prepare(threshold, r)
		fp, _ := q.area(b)
		// Ties go to fewer bands, then fewer rows: the first met in (b, r) order.
		if !found || fp < best.FalsePositive || fp == best.FalsePositive && b < best.Bands ||
			fp == best.FalsePositive && b == best.Bands && r < best.Rows {
			best = Params{Bands: b, Rows: r, FalsePositive: fp}
			found = true
		}
	}
	if !found {
		return Params{}, fmt.Errorf("%w: no scheme of %d permutations detects similarity %v with probability %v; use more permutations",
			ErrTooFewBands, numPerm, s, target)
	}
	// The areas of the chosen scheme, with the quadrature exact for its degree (as
	// FalsePositive and FalseNegative compute them).
	fp, fn := newQuadrature(best.Bands*best.Rows/2+1).areas(threshold, best.Rows, []int{best.Bands})
	best.FalsePositive, best.FalseNegative = fp[0], fn[0]
	return best, nil
}

// fpTwoBands is FP(2, r) = ∫₀ᵗ 2s^r - s^(2r) ds in closed form.
func fpTwoBands(t float64, r int) float64 {
	return 2*math.Pow(t, float64(r+1))/float64(r+1) - math.Pow(t, float64(2*r+1))/float64(2*r+1)
}
