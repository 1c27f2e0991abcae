package pairs

import (
	"github.com/neardup/neardup/candidates"
	"github.com/neardup/neardup/containment"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// decideContainment decides a pair by the exact containment of its smaller set in the
// larger (containment.Of; equal sizes: the later id is the contained one).
func (d *decider) decideContainment(u, v *scored, hashes [2][]uint64) (float64, bool, error) {
	sim := containment.Of(hashes[0], hashes[1])
	ok := sim >= d.f.Threshold
	d.recordContainment(u, v, len(hashes[0]), len(hashes[1]), sim, ok)
	return sim, ok, nil
}

// recordContainment records the verdict on u and v, of sets of nu and nv shingles. A
// verified edge points from container to contained: U is the container, V the document
// that cluster.Containment may remove into it.
func (d *decider) recordContainment(u, v *scored, nu, nv int, sim float64, ok bool) {
	e := elem.Edge{U: u.Node, V: v.Node, Sim: sim}
	d.near.Add(e, ok)
	if !ok {
		d.counts.falseCandidates++
		return
	}
	d.counts.verified++
	e.ULen, e.VLen = u.Length, v.Length
	if containment.Contained(nu, nv, u.Node, v.Node) {
		e.U, e.V, e.ULen, e.VLen = e.V, e.U, e.VLen, e.ULen
	}
	d.out = append(d.out, e)
}

// joinBytesPerShingle is about what containment.Join holds per shingle of its sets:
// the set, its sorted copy, its rank and its posting.
const joinBytesPerShingle = 32

// resolveContainment decides a large bucket under containment. When its members' sets
// fit in the decider's share of memory they are joined (containment.Join): every pair
// of the bucket is decided, while only those sharing a token rare within the bucket
// are compared, so the shared licence or header that filled the bucket costs nothing.
// A bucket too large to hold is compared pair by pair (resolveAll).
func (d *decider) resolveContainment(ms []scored) error {
	total := int64(0)
	for i := range ms {
		total += int64(ms[i].size())
	}
	if total*joinBytesPerShingle > 2*d.f.sigLimit {
		return d.resolveAll(ms)
	}
	sets := make([][]uint64, len(ms))
	for i := range ms {
		h, err := d.sets.load(&ms[i].half, nil)
		if err != nil {
			return err
		}
		sets[i] = h
	}
	found := int64(0)
	compared := containment.Join(sets, d.f.Threshold, func(i, j int, sim float64) {
		found++
		d.recordContainment(&ms[i], &ms[j], len(sets[i]), len(sets[j]), sim, true)
	})
	d.counts.candidates += compared
	d.counts.compared += compared
	d.counts.falseCandidates += compared - found
	return nil
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

// firstEdges passes on the first of each verified containment edge a bundle decides. A
// pair of files that share much shares many band buckets, and each large bucket is
// joined whole in its pivot's partition, so the same edge is verified there again and
// again; sent on every time, the repeats would outnumber the distinct edges many times
// over in the shuffle to clustering, which holds them all at once. Edges arrive in
// partition order (elem.PartitionPool), so which copy is kept is fixed.
type firstEdges map[[2]string]struct{}

// keep removes from out, in place, the edges passed on before, and returns the rest.
func (f firstEdges) keep(out []elem.Edge) []elem.Edge {
	n := 0
	for _, e := range out {
		k := [2]string{e.U, e.V}
		if _, ok := f[k]; ok {
			continue
		}
		f[k] = struct{}{}
		out[n] = e
		n++
	}
	return out[:n]
}
