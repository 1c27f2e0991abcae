package gen

import (
	"math/rand/v2"
	"slices"
)

// plan is the corpus's structure, drawn before any text: which documents are
// originals, which duplicate what, and where each lands in the output. Logical
// index i < bases is an original; i ≥ bases is a duplicate of parent[i-bases].
type plan struct {
	bases    int
	parent   []int32   // per duplicate: the logical index it is derived from
	clusters [][]int32 // per cluster: its original, then its duplicates (logical indices)
	order    []int32   // output position → logical index
	pos      []int32   // logical index → output position
}

// joinExisting is the chance that a duplicate joins an existing cluster instead of
// starting one from a fresh original; clusters are picked uniformly, so sizes come
// out roughly geometric (mostly pairs, a tail of larger ones).
const joinExisting = 0.3

// fromDuplicate is the chance that a duplicate copies an earlier duplicate of its
// cluster rather than the original: copies of copies, as on the web.
const fromDuplicate = 0.3

func newPlan(o Options) *plan {
	r := rand.New(rand.NewPCG(o.Seed, planStream))
	dups := int(float64(o.N)*o.DupFraction + 0.5)
	p := &plan{bases: o.N - dups, parent: make([]int32, dups)}
	if p.bases == 0 {
		// Only possible for tiny N with a large fraction: keep one original.
		p.bases, p.parent = min(o.N, 1), p.parent[:max(o.N-1, 0)]
		dups = len(p.parent)
	}
	// Originals are taken for new clusters in a random order (a lazy Fisher–Yates),
	// so cluster roots are spread over the whole corpus.
	fresh := make([]int32, p.bases)
	for i := range fresh {
		fresh[i] = int32(i)
	}
	next := 0
	for d := range dups {
		var c int
		if len(p.clusters) > 0 && (next == p.bases || r.Float64() < joinExisting) {
			c = r.IntN(len(p.clusters))
		} else {
			j := next + r.IntN(p.bases-next)
			fresh[next], fresh[j] = fresh[j], fresh[next]
			p.clusters = append(p.clusters, []int32{fresh[next]})
			next++
			c = len(p.clusters) - 1
		}
		members := p.clusters[c]
		src := members[0]
		if r.Float64() < fromDuplicate {
			src = members[r.IntN(len(members))]
		}
		p.parent[d] = src
		p.clusters[c] = append(members, int32(p.bases+d))
	}
	perm := r.Perm(o.N)
	p.order = make([]int32, o.N)
	p.pos = make([]int32, o.N)
	for logical, position := range perm {
		p.order[position] = int32(logical)
		p.pos[logical] = int32(position)
	}
	return p
}

// truthClusters returns each cluster's member positions, sorted, clusters ordered
// by their smallest position.
func (p *plan) truthClusters() [][]int32 {
	out := make([][]int32, len(p.clusters))
	for i, c := range p.clusters {
		m := make([]int32, len(c))
		for j, x := range c {
			m[j] = p.pos[x]
		}
		slices.Sort(m)
		out[i] = m
	}
	slices.SortFunc(out, func(a, b []int32) int { return int(a[0]) - int(b[0]) })
	return out
}
