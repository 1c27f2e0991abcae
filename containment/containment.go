// Package containment holds the exact containment measure and the rule that turns
// verified containment pairs into kept and removed documents.
//
// A document A is a partial copy of B when |A∩B|/|A| ≥ t and A is not larger than B;
// of two documents with sets of equal size, the one whose id sorts later is the
// contained one. Containment is not transitive and a document can be contained in
// several others that share nothing, so the pairs are not clustered by connected
// components. Instead each pair is a directed edge from the contained document to its
// container, and the documents are decided from the largest down:
//
//   - a document is kept unless it is contained in a kept document;
//   - a removed document joins the cluster of the kept container it is most contained
//     in (ties to the smaller id).
//
// The edges go from smaller to larger sets (ties by id), so they form no cycle and the
// rule decides every document exactly once, whatever order the edges come in. In a
// chain A ⊂ B ⊂ C, C is kept and B removed into C's cluster; A is removed into C's
// cluster if A is contained in C too, and is kept otherwise: a document is removed
// only for a container that stays in the corpus. Exact duplicates form one group,
// decided by its smallest id: all removed into the same cluster, or all but that one
// removed into its own.
package containment

import (
	"cmp"
	"slices"

	"github.com/neardup/neardup/internal/unionfind"
	"github.com/neardup/neardup/jaccard"
)

// Of returns |a∩b| / min(|a|, |b|) for two ascending, duplicate-free hash sets: the
// containment of the smaller in the larger. Two empty sets score 1.0, one empty set 0.0
// (as jaccard.Similarity scores them).
func Of(a, b []uint64) float64 {
	if len(a) == 0 || len(b) == 0 {
		if len(a) == len(b) {
			return 1
		}
		return 0
	}
	return float64(jaccard.Intersection(a, b)) / float64(min(len(a), len(b)))
}

// Contained reports whether, of two documents with sets of sizes na and nb and ids
// ida and idb, the first is the contained one (the smaller set; of equal sizes, the
// later id).
func Contained(na, nb int, ida, idb string) bool {
	if na != nb {
		return na < nb
	}
	return ida > idb
}

// Pair is a verified pair: Member is contained in Container at Sim ≥ the threshold.
type Pair struct {
	Member, Container string
	Sim               float64
}

// Fate is what Resolve decided for a document that is in at least one pair.
type Fate struct {
	ID      string
	Kept    string  // the kept document of its cluster (ID itself when kept)
	Removed bool    //
	Sim     float64 // removed: its containment in Kept; kept: the largest of its members'
}

// Resolve applies the rule to the verified pairs and the exact-duplicate pairs (each
// with the smaller id first). It returns the fate of every document in a pair, sorted by
// id; a kept document that no removed document joined has no cluster and is left out.
func Resolve(pairs []Pair, duplicates [][2]string) []Fate {
	ids := map[string]int{}
	var names []string
	node := func(id string) int {
		i, ok := ids[id]
		if !ok {
			i = len(names)
			ids[id] = i
			names = append(names, id)
		}
		return i
	}
	// Exact duplicates collapse onto their smallest id (union-find toward the smaller).
	forest := unionfind.New(0)
	find := forest.Find
	for _, d := range duplicates {
		a, b := node(d[0]), node(d[1])
		forest.Grow(len(names))
		forest.UnionFunc(a, b, func(x, y int) bool { return names[x] < names[y] })
	}
	type arc struct {
		to  int
		sim float64
	}
	out := map[int][]arc{}  // contained representative → its containers' representatives
	into := map[int][]int{} // container representative → the representatives it contains
	for _, p := range pairs {
		m, c := node(p.Member), node(p.Container)
		forest.Grow(len(names))
		rm, rc := find(m), find(c)
		if rm == rc {
			continue
		}
		out[rm] = append(out[rm], arc{to: rc, sim: p.Sim})
		into[rc] = append(into[rc], rm)
	}
	forest.Grow(len(names))
	// Decide the representatives containers first (Kahn's order over the acyclic arcs):
	// a representative is decided once all its containers are.
	waiting := make([]int, len(names))
	for m, arcs := range out {
		waiting[m] = len(arcs)
	}
	kept := make([]bool, len(names))
	keeper := make([]int, len(names)) // the kept container a removed representative joins
	best := make([]float64, len(names))
	var ready []int
	for i := range names {
		if find(i) == i && waiting[i] == 0 {
			ready = append(ready, i)
		}
	}
	decided := make([]bool, len(names))
	next := 0 // order[next:] may hold representatives left undecided by a cycle
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(names[a], names[b]) })
	for {
		if len(ready) == 0 {
			// Arcs of one direction never cycle; a cycle can only come from pairs whose
			// direction disagrees with the sizes, and is broken at its smallest id.
			for next < len(order) && (decided[order[next]] || find(order[next]) != order[next]) {
				next++
			}
			if next == len(order) {
				break
			}
			ready = append(ready, order[next])
		}
		x := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		if decided[x] {
			continue
		}
		decided[x] = true
		keeper[x], kept[x] = x, true
		for _, a := range out[x] {
			if !decided[a.to] || !kept[a.to] {
				continue
			}
			if kept[x] || a.sim > best[x] || a.sim == best[x] && names[a.to] < names[keeper[x]] {
				keeper[x], best[x], kept[x] = a.to, a.sim, false
			}
		}
		for _, m := range into[x] {
			if waiting[m]--; waiting[m] == 0 {
				ready = append(ready, m)
			}
		}
	}
	// Every document takes its representative's decision; duplicates of a kept
	// representative are removed into it at 1.0.
	members := map[int]int{} // kept representative → documents removed into it
	fates := make([]Fate, 0, len(names))
	for i, id := range names {
		r := find(i)
		f := Fate{ID: id}
		switch {
		case !kept[r]:
			f.Kept, f.Removed, f.Sim = names[keeper[r]], true, best[r]
			members[keeper[r]]++
		case r != i:
			f.Kept, f.Removed, f.Sim = names[r], true, 1
			members[r]++
		default:
			f.Kept = id
		}
		fates = append(fates, f)
	}
	// Kept documents: their members' best containment; those nobody joined drop out.
	top := map[string]float64{}
	for _, f := range fates {
		if f.Removed {
			top[f.Kept] = max(top[f.Kept], f.Sim)
		}
	}
	n := 0
	for _, f := range fates {
		if !f.Removed {
			if members[ids[f.ID]] == 0 {
				continue
			}
			f.Sim = top[f.ID]
		}
		fates[n] = f
		n++
	}
	fates = fates[:n]
	slices.SortFunc(fates, func(a, b Fate) int { return cmp.Compare(a.ID, b.ID) })
	return fates
}
