package pipeline

import (
	"errors"
	"fmt"

	"github.com/neardup/neardup/lsh"
)

// ChooseContainment returns the size-class banding of --measure containment.
func ChooseContainment(threshold float64, numPerm int) (lsh.ContainmentScheme, error) {
	return lsh.ContainmentParams(threshold, numPerm, lsh.DefaultRecallMargin, lsh.DefaultRecallTarget)
}

// validateMeasure checks --measure and the flags containment does not combine with.
func (c *Config) validateMeasure() error {
	switch c.Measure {
	case "", MeasureJaccard:
		return nil
	case MeasureContainment:
	default:
		return oneOf("--measure", c.Measure, MeasureJaccard, MeasureContainment)
	}
	var errs []error
	if c.Verify != VerifyExact {
		errs = append(errs, fmt.Errorf("--measure containment: decides by exact containment only; --verify %s does not apply", c.Verify))
	}
	if c.Keep != KeepSmallestID {
		errs = append(errs, fmt.Errorf("--measure containment: the container is kept; --keep %s does not apply", c.Keep))
	}
	if c.CC == CCDistributed {
		errs = append(errs, errors.New("--measure containment: containment pairs are decided on one worker; --cc distributed does not apply"))
	}
	if len(c.Against) > 0 || c.UpdateIndex || len(c.Prefer) > 0 {
		errs = append(errs, errors.New("--measure containment: --against, --update-index and --prefer are not supported yet"))
	}
	if c.Bands != 0 || c.Rows != 0 {
		errs = append(errs, errors.New("--measure containment: bands and rows are chosen per size class; --bands/--rows do not apply"))
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if _, err := ChooseContainment(c.Threshold, c.NumPerm); err != nil {
		return fmt.Errorf("--threshold %v with --num-perm %d: %w", c.Threshold, c.NumPerm, err)
	}
	return nil
}

// isContainment reports whether the run measures containment.
func (c *Config) isContainment() bool { return c.Measure == MeasureContainment }

// detection is the probability that a pair at similarity sim shares a bucket: under
// containment, the least over the size-class groups, each at its worst size ratio, and
// the sampling of the pairs further apart.
func (pl *plan) detection(sim float64) float64 {
	if pl.containment == nil {
		return lsh.Detection(sim, pl.bands, pl.rows)
	}
	p := 1.0
	for _, g := range pl.containment.Groups {
		p = min(p, pl.containment.Detection(sim, g.MaxRatio, g.Distance))
	}
	return min(p, pl.containment.Sample.Bound(sim))
}
