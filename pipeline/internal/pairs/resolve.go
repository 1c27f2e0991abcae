package pairs

import (
	"github.com/neardup/neardup/candidates"
)

// resolveBuckets decides the large buckets of a partition from their members' halves,
// sorted by bucket, then id: bucket by bucket, under containment several at once
// (resolveContainmentBuckets).
func (d *decider) resolveBuckets(halves []half) error {
	if d.f.Containment {
		return d.resolveContainmentBuckets(halves)
	}
	for i := 0; i < len(halves); {
		j := i + 1
		for j < len(halves) && halves[j].V == halves[i].V {
			j++
		}
		if err := d.resolve(halves[i:j]); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// resolve decides one large bucket from its members' sets, sorted by id.
func (d *decider) resolve(members []half) error {
	ms := make([]scored, len(members))
	for i, h := range members {
		ms[i] = scored{half: h, sig: -1}
	}
	d.reset(len(ms))
	threshold := d.f.Threshold
	if d.f.Mode == None {
		threshold = 0 // every comparison is accepted: the bucket is one cluster
	}
	var err error
	res := candidates.Resolve(len(ms), threshold, candidates.Budget(len(ms), d.f.Comparisons, d.f.BudgetFloor),
		func(i, j int) float64 {
			if err != nil {
				return 0
			}
			var sim float64
			sim, _, err = d.decide(&ms[i], &ms[j])
			return sim
		})
	d.counts.compared += res.Compared
	d.counts.unresolved += res.Unresolved
	return err
}
