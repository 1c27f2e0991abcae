package pairs

import (
	"cmp"
	"slices"
	"strings"

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

// containmentPartition is where, under containment, the members of every large bucket
// meet: a document is in many large buckets, each with another smallest id, and one
// partition decides them together (resolveContainmentBuckets), loading and ranking its
// set once for all of them instead of once in each bucket's partition.
const containmentPartition = 0

// resolveContainmentBuckets decides the large buckets of a partition under
// containment, from their members' halves sorted by bucket, then id: consecutive
// buckets whose distinct members' sets fit in the decider's share of memory are
// decided together (joinBuckets); a bucket too large alone, in blocks (joinBlocks).
func (d *decider) resolveContainmentBuckets(halves []half) error {
	limit := 2 * d.f.sigLimit / joinBytesPerShingle // shingles held at once
	seen := map[string]struct{}{}
	total, from := int64(0), 0
	for i := 0; i < len(halves); {
		j, fresh, all := i, int64(0), int64(0)
		for ; j < len(halves) && halves[j].V == halves[i].V; j++ {
			n := int64(halves[j].size())
			all += n
			if _, ok := seen[halves[j].Node]; !ok {
				fresh += n
			}
		}
		if total+fresh > limit && from < i {
			if err := d.joinBuckets(halves[from:i]); err != nil {
				return err
			}
			clear(seen)
			total, from, fresh = 0, i, all
		}
		if fresh > limit { // from == i: the bucket alone
			if err := d.joinBlocks(halves[i:j], limit); err != nil {
				return err
			}
			i, from = j, j
			continue
		}
		for _, h := range halves[i:j] {
			seen[h.Node] = struct{}{}
		}
		total += fresh
		i = j
	}
	if from < len(halves) {
		return d.joinBuckets(halves[from:])
	}
	return nil
}

// joinBuckets decides large buckets under containment, from their members' halves
// sorted by bucket, then id, with one containment.JoinGroups over their distinct
// members: a document in many buckets (a licence shared by thousands of files puts it
// in one per band, each with another smallest id) is loaded, ranked and compared once,
// not once per bucket, and the pairs decided are exactly those the buckets' own joins
// (containment.Join of each) decide.
func (d *decider) joinBuckets(halves []half) error {
	of := make([]int32, len(halves)) // each half's bucket number
	for i := 1; i < len(halves); i++ {
		of[i] = of[i-1]
		if halves[i].V != halves[i-1].V {
			of[i]++
		}
	}
	byID := make([]int, len(halves)) // halves by member id, then bucket
	for i := range byID {
		byID[i] = i
	}
	slices.SortFunc(byID, func(a, b int) int {
		return cmp.Or(strings.Compare(halves[a].Node, halves[b].Node), cmp.Compare(of[a], of[b]))
	})
	var ms []scored
	var groups [][]int32
	for _, i := range byID {
		if n := len(ms); n == 0 || ms[n-1].Node != halves[i].Node {
			ms = append(ms, scored{half: halves[i], sig: -1})
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], of[i])
	}
	d.reset(len(ms))
	total := 0
	for i := range ms {
		total += ms[i].size()
	}
	var scratch []uint64
	load := func(i int) ([]uint64, error) {
		h, err := d.sets.load(&ms[i].half, scratch)
		if ms[i].inFile() {
			scratch = h
		}
		return h, err
	}
	found := int64(0)
	compared, err := containment.JoinGroups(len(ms), total, load, groups, d.f.Threshold, func(i, j int, sim float64) {
		found++
		d.recordContainment(&ms[i], &ms[j], ms[i].size(), ms[j].size(), sim, true)
	})
	if err != nil {
		return err
	}
	d.counts.candidates += compared
	d.counts.compared += compared
	d.counts.falseCandidates += compared - found
	return nil
}

// joinBlocks decides one large bucket under containment whose members' sets, halves
// sorted by id, do not fit in limit shingles together: joined in blocks of members
// (containment.JoinBlocks), each set read back from its spill file once per block it
// meets, so every pair of the bucket is decided, as a join of it whole decides it, with
// no more than limit shingles held.
func (d *decider) joinBlocks(halves []half, limit int64) error {
	halves = slices.CompactFunc(slices.Clone(halves), func(a, b half) bool { return a.Node == b.Node })
	var scratch []uint64
	load := func(i int) ([]uint64, error) {
		h, err := d.sets.load(&halves[i], scratch)
		if halves[i].inFile() {
			scratch = h
		}
		return h, err
	}
	found := int64(0)
	compared, err := containment.JoinBlocks(len(halves), func(i int) int { return halves[i].size() }, load, limit, d.f.Threshold, func(i, j int, sim float64) {
		found++
		d.recordContainment(&scored{half: halves[i], sig: -1}, &scored{half: halves[j], sig: -1}, halves[i].size(), halves[j].size(), sim, true)
	})
	if err != nil {
		return err
	}
	d.counts.candidates += compared
	d.counts.compared += compared
	d.counts.falseCandidates += compared - found
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
