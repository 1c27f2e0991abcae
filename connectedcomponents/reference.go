package connectedcomponents

// Reference labels every node that appears in edges with the smallest id (Go
// string order) of its connected component, using an in-memory union-find.
//
// It is the test oracle for Label and is handy for small in-memory graphs; it
// holds every node in a map, so it is not meant for corpus-sized inputs.
// Edges may come in either orientation, repeat, or be self-loops; a node seen
// only in a self-loop is its own component.
func Reference(edges [][2]string) map[string]string {
	parent := make(map[string]string)
	// find returns the root of x, halving the path on the way (every node on
	// the path is pointed at its grandparent) so later finds stay short even
	// though union does not balance by rank.
	find := func(x string) string {
		for {
			p := parent[x]
			if p == x {
				return x
			}
			gp := parent[p]
			parent[x] = gp
			x = gp
		}
	}
	add := func(x string) {
		if _, ok := parent[x]; !ok {
			parent[x] = x
		}
	}
	for _, e := range edges {
		a, b := e[0], e[1]
		add(a)
		add(b)
		ra, rb := find(a), find(b)
		if ra == rb {
			continue
		}
		// Keeping the smaller root makes every root its component's minimum,
		// so the final find is the label directly.
		if rb < ra {
			ra, rb = rb, ra
		}
		parent[rb] = ra
	}
	labels := make(map[string]string, len(parent))
	for x := range parent {
		labels[x] = find(x)
	}
	return labels
}
