package pipeline

import (
	"errors"
	"fmt"

	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/pipeline/internal/cluster"
	"github.com/neardup/neardup/pipeline/internal/pairs"
)

// Measures: what similarity --threshold applies to.
const (
	MeasureJaccard     = "jaccard"     // |A∩B| / |A∪B|; clusters are connected components (default)
	MeasureContainment = "containment" // |A∩B| / |A| for the smaller A; A is removed into B's cluster
)

// ChooseContainment returns the size-class banding of --measure containment.
func ChooseContainment(threshold float64, numPerm int) (lsh.ContainmentScheme, error) {
	return lsh.ContainmentParams(threshold, numPerm, lsh.DefaultRecallMargin, lsh.DefaultRecallTarget)
}

// validateMeasure checks --measure and the flags containment does not combine with,
// and chooses the containment banding.
func (c *Config) validateMeasure() error {
	switch c.Measure {
	case "", MeasureJaccard:
		return nil
	case MeasureContainment:
	default:
		return fmt.Errorf("--measure: must be jaccard or containment, got %q", c.Measure)
	}
	var errs []error
	if c.Verify != pairs.Exact {
		errs = append(errs, fmt.Errorf("--measure containment: decides by exact containment only; --verify %s does not apply", c.Verify))
	}
	if c.Keep != cluster.KeepSmallestID {
		errs = append(errs, fmt.Errorf("--measure containment: the container is kept; --keep %s does not apply", c.Keep))
	}
	if c.CC == cluster.Distributed {
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
	s, err := ChooseContainment(c.Threshold, c.NumPerm)
	if err != nil {
		return fmt.Errorf("--threshold %v with --num-perm %d: %w", c.Threshold, c.NumPerm, err)
	}
	c.containment = &s
	return nil
}

// isContainment reports whether the run measures containment.
func (c *Config) isContainment() bool { return c.Measure == MeasureContainment }

// detection is the probability that a pair at similarity sim shares a bucket: under
// containment, the least over the size-class groups, each at its worst size ratio.
func (c *Config) detection(sim float64) float64 {
	if !c.isContainment() {
		return lsh.Detection(sim, c.Bands, c.Rows)
	}
	p := 1.0
	for _, g := range c.containment.Groups {
		p = min(p, c.containment.Detection(sim, g.MaxRatio, g.Distance))
	}
	return p
}
