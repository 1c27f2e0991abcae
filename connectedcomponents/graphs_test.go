package connectedcomponents

import (
	"fmt"
	"math/rand/v2"
)

// Graph generators and an in-memory driver shared by the pure-Go and the
// Prism tests. Ids are formatted decimal numbers, so Go string order differs
// from numeric order ("n10" < "n9") and the tests exercise string order.

type edge = [2]string

// randomGraph draws m edges between n nodes uniformly (duplicates and
// self-loops possible, as in real candidate edges) and orients each randomly.
func randomGraph(rng *rand.Rand, prefix string, n, m int) []edge {
	ids := shuffledIDs(rng, prefix, n)
	edges := make([]edge, m)
	for i := range edges {
		edges[i] = edge{ids[rng.IntN(n)], ids[rng.IntN(n)]}
	}
	return edges
}

// chain is a path through n nodes visited in random id order, each edge in a
// random orientation: the slowest shape for label propagation.
func chain(rng *rand.Rand, prefix string, n int) []edge {
	ids := shuffledIDs(rng, prefix, n)
	edges := make([]edge, n-1)
	for i := range edges {
		edges[i] = orient(rng, ids[i], ids[i+1])
	}
	return edges
}

// star joins centre to every one of leaves, half the edges each way.
func star(rng *rand.Rand, centre string, leaves []string) []edge {
	edges := make([]edge, len(leaves))
	for i, l := range leaves {
		edges[i] = orient(rng, centre, l)
	}
	return edges
}

func orient(rng *rand.Rand, a, b string) edge {
	if rng.IntN(2) == 0 {
		return edge{a, b}
	}
	return edge{b, a}
}

func shuffledIDs(rng *rand.Rand, prefix string, n int) []string {
	ids := make([]string, n)
	for i, p := range rng.Perm(n) {
		ids[i] = fmt.Sprintf("%s%d", prefix, p)
	}
	return ids
}

// iter makes a one-pass iterator over a slice, the way the Beam harness
// hands a CoGroupByKey value stream to a DoFn.
func iter(vals []string) func(*string) bool {
	i := 0
	return func(v *string) bool {
		if i >= len(vals) {
			return false
		}
		*v = vals[i]
		i++
		return true
	}
}

// memViews plays toViews and CoGroupByKey for the in-memory driver: the
// nodes (in map order, which is random) and their two views.
func memViews(graph []edge) (nodes map[string]bool, smaller, larger map[string][]string) {
	nodes = make(map[string]bool)
	smaller = make(map[string][]string)
	larger = make(map[string][]string)
	for _, e := range graph {
		toViews(e[0], e[1],
			func(k, v string) { smaller[k] = append(smaller[k], v); nodes[k] = true },
			func(k, v string) { larger[k] = append(larger[k], v); nodes[k] = true })
	}
	return nodes, smaller, larger
}

// memRound is one round of Label in memory: the same per-node functions on
// the same groups as the Beam transform. The working graph is the smaller
// view as edges (larger, smaller), as LabelWithGraph returns it.
func memRound(graph []edge) []edge {
	nodes, smaller, larger := memViews(graph)
	var large []edge
	for u := range nodes {
		largeStar(u, iter(smaller[u]), iter(larger[u]), func(v, m string) { large = append(large, edge{v, m}) })
	}
	byLarger := make(map[string][]string)
	for _, e := range large {
		byLarger[e[0]] = append(byLarger[e[0]], e[1])
	}
	var small []edge
	for u, vs := range byLarger {
		smallStar(u, iter(vs), iter(vs), func(v, m string) { small = append(small, edge{v, m}) })
	}
	return small
}

// memFinish is Label's labelling and check steps in memory.
func memFinish(graph []edge) (labels map[string]string, unconverged int64) {
	nodes, smaller, larger := memViews(graph)
	labels = make(map[string]string)
	received := make(map[string][]string)
	for u := range nodes {
		labelNode(u, iter(smaller[u]), iter(larger[u]),
			func(n, l string) { labels[n] = l },
			func(n, l string) { received[n] = append(received[n], l) })
	}
	for _, ls := range received {
		if !agree(iter(ls)) {
			unconverged++
		}
	}
	return labels, unconverged
}

// roundsToConverge runs rounds until the check reports 0 (or max is hit)
// and returns how many it took (max+1 when it never converged).
func roundsToConverge(edges []edge, max int) int {
	g := edges
	for r := 0; r <= max; r++ {
		if _, u := memFinish(g); u == 0 {
			return r
		}
		g = memRound(g)
	}
	return max + 1
}
