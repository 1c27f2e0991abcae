package pairs

import (
	"github.com/neardup/neardup/candidates"
	"github.com/neardup/neardup/containment"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// decideContainment decides a pair by the exact containment of its smaller set in the
// larger (containment.Of; equal sizes: the later id is the contained one). A verified
// edge points from container to contained: U is the container, V the document that
// cluster.Containment may remove into it.
func (d *decider) decideContainment(u, v *scored, hashes [2][]uint64) (float64, bool, error) {
	sim := containment.Of(hashes[0], hashes[1])
	ok := sim >= d.f.Threshold
	e := elem.Edge{U: u.Node, V: v.Node, Sim: sim}
	d.near.Add(e, ok)
	if !ok {
		d.counts.falseCandidates++
		return sim, false, nil
	}
	d.counts.verified++
	e.ULen, e.VLen = u.Length, v.Length
	if containment.Contained(len(hashes[0]), len(hashes[1]), u.Node, v.Node) {
		e.U, e.V, e.ULen, e.VLen = e.V, e.U, e.VLen, e.ULen
	}
	d.out = append(d.out, e)
	return sim, true, nil
}

// resolveAll decides a large bucket under containment by all its pairs, in id order,
// within the bucket's budget. The pivot shortcut of candidates.Resolve needs a metric,
// and 1 - containment is none; the pairs left when the budget runs out are counted
// (unresolved_bucket_pairs).
func (d *decider) resolveAll(ms []scored) error {
	k := len(ms)
	budget := candidates.Budget(k, d.f.Comparisons, d.f.BudgetFloor)
	var compared int64
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			if compared == budget {
				rest := int64(k-j) + int64(k-i-1)*int64(k-i-2)/2
				d.counts.compared += compared
				d.counts.unresolved += rest
				return nil
			}
			compared++
			if _, _, err := d.decide(&ms[i], &ms[j]); err != nil {
				return err
			}
		}
	}
	d.counts.compared += compared
	return nil
}
