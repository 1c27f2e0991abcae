// Package connectedcomponents groups verified duplicate pairs into clusters:
// it labels every document id that appears in an edge with the smallest id
// (Go string order) of its connected component, exactly what Reference's
// union-find gives, but as a Beam transform that scales past one machine.
//
// # Algorithm
//
// Label alternates Large-Star and Small-Star (Kiveris et al., "Connected
// Components in MapReduce and Beyond", SoCC 2014), two grouping shuffles a
// round. Large-Star points every larger neighbour of u at the smallest node
// of u's closed neighbourhood; Small-Star groups each edge by its larger
// endpoint and points u and all its smaller neighbours at the smallest of
// them. Both keep the node set and the components of the input, never
// increase the number of edges, and converge to one star per component whose
// centre is the component's minimum. The per-node operations are plain Go
// (star.go), tested without Beam; the DoFns only wire them up.
//
// The working graph travels as two views of the same edges: the smaller view
// keys each edge by its larger endpoint, the larger view by its smaller one.
// Large-Star is a CoGroupByKey of the two (the minimum comes from the smaller
// view, the edges to rewrite from the larger one: one pass each); Small-Star
// reads its group twice and gets it twice, as a CoGroupByKey of two copies of
// Large-Star's output. The Beam Go SDK v2.77.0 cannot re-iterate GroupByKey
// values: graph construction accepts a func() func(*T) bool parameter, but
// execution rejects it ("GBK/CoGBK result values must be iterable",
// exec/fn.go), so every pass needs its own iterator. A round shuffles about
// four elements per edge.
//
// A Beam graph is static, so rounds are unrolled (Options.Rounds, default
// DefaultRounds = 12). Random graphs converge in a few rounds; a path in
// shuffled id order, the slowest shape, in about log2(n) (TestChainRounds
// holds it within log2(n)+2). So 12 rounds cover random graphs with a wide
// margin and paths of thousands of nodes; the paper's worst-case bound is
// O(log² n) rounds. Extra rounds on a converged graph change nothing.
//
// After the rounds, a labelling step (one CoGroupByKey of the two views)
// labels u with L(u) = min(u, neighbours of u) and sends L(u) to u and to its
// larger neighbours; a check step (one GroupByKey) counts the nodes that
// receive two different labels. That is 2·Rounds+2 shuffles in all.
//
// # Partitioned
//
// LabelPartitioned runs the same rounds on the working graph gathered by partition of
// node: an element crossing a shuffle is a batch of edges, and each step sorts a
// partition's edges by node and runs the same per-node operations on each node's
// group. A runner's cost is per element, so it shuffles a few elements per partition
// and bundle instead of about four per edge; in exchange a step holds a partition's
// edges in memory, not one neighbour at a time (see Skew).
//
// # Convergence
//
// unconverged is the number of nodes whose label differs from the label of
// at least one of their smaller neighbours in the final working graph. It is
// 0 if and only if every label equals Reference's, because the working graph
// has the input's nodes and components and every edge is checked at its
// larger end: if labels agree across every edge they are constant on each
// component C, and L(min C) = min C while L(u) ≤ u for all u, so the
// constant is min C; conversely a disagreeing edge lies inside one
// component, so one of its ends is not labelled with the single true minimum.
//
// When unconverged > 0 the labels are still never wrong in the dangerous
// direction: every label L(u) is a node of u's component with L(u) ≤ u, so a
// node with L(u) < u really has a smaller duplicate, and removing it under the
// keep-the-smallest policy is right whatever the round. What can be wrong is
// only that some node with L(u) == u is not its component's minimum (a
// duplicate kept, a cluster split in several), so the caller must either fail
// loudly or continue: LabelWithGraph also returns the working graph, which
// has the same components as the input and can be saved and fed to Label in
// a new pipeline (a driver loop) without losing anything.
//
// # Skew
//
// A boilerplate page can make one node adjacent to millions of others. No
// step holds a group in a slice: every per-node operation streams its
// iterators and keeps a constant number of strings (TestStarMemory measures
// it on 100,000 neighbours). What the SDK harness itself buffers depends on
// the runner: Prism sends each group inline and the Go harness decodes it
// into memory before the DoFn re-reads it; runners that page large groups
// through the state API (Dataflow) keep the harness bounded too.
//
// # Metrics
//
// Counters in namespace "neardup": cc_unconverged_nodes (same number as the
// unconverged output) and per round cc_round_NN_large_star_changed and
// cc_round_NN_small_star_changed (edges rewritten; both are 0 in a round
// that starts from a converged graph).
package connectedcomponents
