package connectedcomponents

import "fmt"

// The per-node operations of the algorithm, in plain Go. Each reads a node's
// group through one-pass iterators of the shape Beam Go hands to a DoFn for
// CoGroupByKey values (func(*string) bool: fills its argument, false at the
// end), so the same code runs inside the DoFns and in plain tests, and none
// of it ever holds a neighbourhood in a slice: memory per node is constant
// however many neighbours it has.
//
// The working graph travels as two views of the same edges, so that every
// operation needs only one pass per iterator: the smaller view keys each edge
// by its larger endpoint (values: smaller neighbours, and the node itself for
// a self-loop), the larger view keys it by its smaller endpoint (values:
// larger neighbours).

// largeStar is Kiveris et al.'s Large-Star at node u. With m the smallest of u
// and its smaller neighbours (the smallest of its whole closed neighbourhood),
// it emits the edge (v, m) for every larger neighbour v, once per occurrence.
// Every edge is emitted by its smaller endpoint only, so the edge count never
// grows; emitted edges are (larger, smaller).
//
// A node with no neighbour but itself would otherwise vanish from the graph:
// it emits the self-loop (u, u) to stay labelled. A node with any other
// neighbour is kept by the edges around it (the paper's lemma: Large-Star
// keeps every node and every component).
//
// It returns how many emitted edges differ from the edge they replace (m != u).
func largeStar(u string, smaller, larger func(*string) bool, emit func(v, m string)) (changed int) {
	m, linked := u, false
	var v string
	for smaller(&v) {
		switch {
		case v > u:
			panic(fmt.Sprintf("connectedcomponents: large-star at %q got %q as a smaller neighbour", u, v))
		case v < u:
			linked = true
			m = min(m, v)
		}
	}
	for larger(&v) {
		if v <= u {
			panic(fmt.Sprintf("connectedcomponents: large-star at %q got %q as a larger neighbour", u, v))
		}
		linked = true
		emit(v, m)
		if m != u {
			changed++
		}
	}
	if !linked {
		emit(u, u)
	}
	return changed
}

// smallStar is Kiveris et al.'s Small-Star at node u. pass1 and pass2 both
// yield u's smaller neighbours (the same values, the group read twice; u
// itself, from a self-loop, is ignored). With m the smallest of them, it
// connects each of them and u itself to m: (v, m) for every v != m, then
// (u, m). Occurrences of m collapse into the single (u, m), so the edge count
// never grows; emitted edges are (larger, smaller).
//
// A node without smaller neighbours emits (u, u), which keeps an isolated
// node alive (a node with larger neighbours is kept by their groups anyway).
//
// It returns how many emitted edges differ from the edge they replace (all
// but (u, m)).
func smallStar(u string, pass1, pass2 func(*string) bool, emit func(v, m string)) (changed int) {
	m := u
	var v string
	for pass1(&v) {
		if v > u {
			panic(fmt.Sprintf("connectedcomponents: small-star at %q got %q as a smaller neighbour", u, v))
		}
		m = min(m, v)
	}
	for pass2(&v) {
		if v < u && v != m {
			emit(v, m)
			changed++
		}
	}
	emit(u, m)
	return changed
}

// labelNode labels u with the smallest of u and its neighbours in the final
// working graph (emitLabel(u, label), exactly once), and sends that label to
// u itself and to each larger neighbour (emitCheck(target, label)), so that
// every edge is checked at its larger endpoint by agree.
//
// Why this is the right label once the graph has converged: rounds keep the
// nodes and the components of the input, and a converged graph is a set of
// stars centred on their components' minima.
func labelNode(u string, smaller, larger func(*string) bool, emitLabel, emitCheck func(node, label string)) {
	l := u
	var v string
	for smaller(&v) {
		l = min(l, v)
	}
	emitLabel(u, l)
	emitCheck(u, l)
	for larger(&v) {
		emitCheck(v, l)
	}
}

// agree reports whether every label a node received (its own and its smaller
// neighbours') is the same. It reads the labels once, so a node with
// millions of neighbours is checked in constant memory.
func agree(labels func(*string) bool) bool {
	var first, l string
	if !labels(&first) {
		return true
	}
	for labels(&l) {
		if l != first {
			return false
		}
	}
	return true
}
