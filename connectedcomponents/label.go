package connectedcomponents

import (
	"context"
	"fmt"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/typex"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats"
)

// DefaultRounds is the number of (Large-Star, Small-Star) rounds Label
// unrolls when Options.Rounds is 0: a wide margin for the components
// near-duplicate detection produces (the package doc says why), in a graph of
// 2·12+2 shuffles.
const DefaultRounds = 12

// metricsNamespace is the Beam metrics namespace shared by the neardup stages.
const metricsNamespace = "neardup"

// Options configures Label.
type Options struct {
	// Rounds is the number of (Large-Star, Small-Star) rounds unrolled into the
	// static Beam graph; 0 means DefaultRounds. Negative values panic.
	Rounds int
}

func (o Options) rounds() int {
	switch {
	case o.Rounds < 0:
		panic(fmt.Sprintf("connectedcomponents: Options.Rounds = %d, want >= 0", o.Rounds))
	case o.Rounds == 0:
		return DefaultRounds
	}
	return o.Rounds
}

// strIter is the one-pass iterator Beam Go hands a DoFn for grouped values.
type strIter = func(*string) bool

func init() {
	register.Function4x0(toViews)
	register.DoFn6x0[context.Context, string, strIter, strIter, func(string, string), func(string, string)](&largeStarFn{})
	register.DoFn6x0[context.Context, string, strIter, strIter, func(string, string), func(string, string)](&smallStarFn{})
	register.DoFn5x0[string, strIter, strIter, func(string, string), func(string, string)](&labelFn{})
	register.DoFn4x0[context.Context, string, strIter, func(int64)](&checkFn{})
	register.Emitter1[int64]()
	register.Emitter2[string, string]()
	register.Iter1[string]()
}

// Label takes edges, a PCollection<KV<string,string>> of undirected edges (either
// orientation; duplicates and self-loops allowed), and returns labels, a
// PCollection<KV<string,string>> with one element (node, label) per node of edges,
// the label being the smallest node id of the node's connected component, and
// unconverged, a PCollection<int64>.
//
// unconverged has exactly one element: the number of nodes whose label differs
// from the label of one of their smaller neighbours in the working graph after the
// unrolled rounds; 0 if and only if labels equal Reference(edges). See the package
// doc for what holds when it is not 0.
func Label(s beam.Scope, edges beam.PCollection, opts Options) (labels, unconverged beam.PCollection) {
	labels, unconverged, _ = LabelWithGraph(s, edges, opts)
	return labels, unconverged
}

// LabelWithGraph is Label that also returns the working graph after the
// rounds: a PCollection<KV<string,string>> of edges (larger, smaller) and
// self-loops of isolated nodes, with the same nodes and components as edges
// and usually far fewer edges. A driver that gets unconverged > 0 can save it
// and run Label on it in a new pipeline to continue where this one stopped.
func LabelWithGraph(s beam.Scope, edges beam.PCollection, opts Options) (labels, unconverged, graph beam.PCollection) {
	s = s.Scope("connectedcomponents.LabelWithGraph")
	checkEdgeType(edges)
	rounds := opts.rounds()

	smaller, larger := beam.ParDo2(s, toViews, edges)
	for r := 1; r <= rounds; r++ {
		smaller, larger = round(s.Scope(fmt.Sprintf("Round%02d", r)), smaller, larger, r)
	}

	ls := s.Scope("Label")
	labels, received := beam.ParDo2(ls, &labelFn{}, beam.CoGroupByKey(ls, smaller, larger))

	cs := s.Scope("Check")
	disagreeing := beam.ParDo(cs, &checkFn{}, beam.GroupByKey(cs, received))
	// The zero makes the sum exist for an empty graph too: exactly one element.
	unconverged = stats.Sum(cs, beam.Flatten(cs, beam.Create(cs, int64(0)), disagreeing))
	return labels, unconverged, smaller
}

// round is one Large-Star followed by one Small-Star: two CoGroupByKeys.
//
// Each step reads a group in two passes (find the minimum, then emit). The
// Beam Go SDK (v2.77.0) does not hand GroupByKey values to a re-iterable
// (ReIter) parameter: graph construction accepts one, but execution rejects
// it ("GBK/CoGBK result values must be iterable", exec/fn.go). So each pass
// gets its own one-pass iterator from a CoGroupByKey of two PCollections:
// Large-Star groups the smaller view (pass 1: the minimum) with the larger
// view (pass 2: the edges to rewrite), which together are exactly the edges in
// both orientations, no more data than a plain GroupByKey would shuffle;
// Small-Star needs the same values twice, so Large-Star emits its edges twice.
func round(s beam.Scope, smaller, larger beam.PCollection, r int) (beam.PCollection, beam.PCollection) {
	pass1, pass2 := beam.ParDo2(s, &largeStarFn{Round: r}, beam.CoGroupByKey(s, smaller, larger))
	// Large-Star's edges are keyed by their larger endpoint, which is what
	// Small-Star groups by.
	return beam.ParDo2(s, &smallStarFn{Round: r}, beam.CoGroupByKey(s, pass1, pass2))
}

// checkEdgeType fails pipeline construction early, with a message naming
// this transform, when edges is not KV<string,string>.
func checkEdgeType(edges beam.PCollection) {
	t := edges.Type()
	str := reflect.TypeFor[string]()
	if !typex.IsKV(t) || t.Components()[0].Type() != str || t.Components()[1].Type() != str {
		panic(fmt.Sprintf("connectedcomponents: edges must be a PCollection<KV<string,string>>, got %v", t))
	}
}

// toViews sends an undirected edge to the two views: keyed by its larger
// endpoint in smaller, by its smaller endpoint in larger. A self-loop goes to
// smaller only, where it just says that the node exists.
func toViews(a, b string, smaller, larger func(string, string)) {
	switch {
	case a == b:
		smaller(a, a)
	case a < b:
		smaller(b, a)
		larger(a, b)
	default:
		smaller(a, b)
		larger(b, a)
	}
}

// largeStarFn runs largeStar on one node and emits every resulting edge
// twice, once for each of Small-Star's passes.
type largeStarFn struct {
	Round   int
	changed beam.Counter
}

func (f *largeStarFn) Setup() {
	f.changed = beam.NewCounter(metricsNamespace, fmt.Sprintf("cc_round_%02d_large_star_changed", f.Round))
}

func (f *largeStarFn) ProcessElement(ctx context.Context, u string, smaller, larger strIter, pass1, pass2 func(string, string)) {
	emit := func(v, m string) {
		pass1(v, m)
		pass2(v, m)
	}
	if n := largeStar(u, smaller, larger, emit); n > 0 {
		f.changed.Inc(ctx, int64(n))
	}
}

// smallStarFn runs smallStar on one node and emits the resulting edges as
// the two views of the next round.
type smallStarFn struct {
	Round   int
	changed beam.Counter
}

func (f *smallStarFn) Setup() {
	f.changed = beam.NewCounter(metricsNamespace, fmt.Sprintf("cc_round_%02d_small_star_changed", f.Round))
}

func (f *smallStarFn) ProcessElement(ctx context.Context, u string, pass1, pass2 strIter, smaller, larger func(string, string)) {
	emit := func(v, m string) { toViews(v, m, smaller, larger) }
	if n := smallStar(u, pass1, pass2, emit); n > 0 {
		f.changed.Inc(ctx, int64(n))
	}
}

// labelFn runs labelNode: labels to the first output, check messages
// (target node, label) to the second.
type labelFn struct{}

func (f *labelFn) ProcessElement(u string, smaller, larger strIter, emitLabel, emitCheck func(string, string)) {
	labelNode(u, smaller, larger, emitLabel, emitCheck)
}

// checkFn emits 1 for a node that received more than one distinct label.
type checkFn struct {
	unconverged beam.Counter
}

func (f *checkFn) Setup() {
	f.unconverged = beam.NewCounter(metricsNamespace, "cc_unconverged_nodes")
}

func (f *checkFn) ProcessElement(ctx context.Context, _ string, labels strIter, emit func(int64)) {
	if !agree(labels) {
		f.unconverged.Inc(ctx, 1)
		emit(1)
	}
}
