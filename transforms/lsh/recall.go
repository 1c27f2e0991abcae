package lsh

import "fmt"

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
	var best Params
	found := false
	for b := 2; b <= numPerm; b++ {
		for r := 1; b*r <= numPerm; r++ {
			if Detection(s, b, r) < target {
				continue
			}
			fp := FalsePositive(threshold, b, r)
			if !found || fp < best.FalsePositive {
				best = Params{Bands: b, Rows: r, FalsePositive: fp}
				found = true
			}
		}
	}
	if !found {
		return Params{}, fmt.Errorf("%w: no scheme of %d permutations detects similarity %v with probability %v; use more permutations",
			ErrTooFewBands, numPerm, s, target)
	}
	best.FalseNegative = FalseNegative(threshold, best.Bands, best.Rows)
	return best, nil
}
