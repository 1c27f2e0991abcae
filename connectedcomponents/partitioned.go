package connectedcomponents

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats"
	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup/internal/batch"
	"github.com/neardup/neardup/internal/wire"
)

// Pair is an edge (Node, Other), or a node and its label.
type Pair struct{ Node, Other string }

// Pairs is a batch of pairs: the element LabelPartitioned moves between its steps, one
// per partition and bundle rather than one per edge.
type Pairs struct{ Items []Pair }

// AppendPairs is the combiner that gathers a partition's batches.
func AppendPairs(a, b Pairs) Pairs { return Pairs{append(a.Items, b.Items...)} }

// PartOf is the partition of a node among n: where LabelPartitioned keys the node's
// edges and its label.
func PartOf(node string, n int) int { return int(xxhash.Sum64String(node) % uint64(n)) }

// batchPairs is the most pairs one emitted batch holds.
const batchPairs = 4096

func init() {
	beam.RegisterType(reflect.TypeOf(Pair{}))
	register.Function2x1(AppendPairs)
	wire.RegisterCoder(encodePairs, decodePairs)
	register.DoFn3x0[int, Pairs, func(int, Pairs)](&viewsFn{})
	register.DoFn4x0[context.Context, int, Pairs, func(int, Pairs)](&starPartFn{})
	register.DoFn4x0[int, Pairs, func(int, Pairs), func(int, Pairs)](&labelPartFn{})
	register.DoFn4x0[context.Context, int, Pairs, func(int64)](&checkPartFn{})
	register.Emitter2[int, Pairs]()
}

func encodePairs(p Pairs) []byte {
	return wire.EncodeAll(p.Items, 24*len(p.Items), func(e *wire.Encoder, x Pair) {
		e.Str(x.Node)
		e.Str(x.Other)
	})
}

func decodePairs(b []byte) (Pairs, error) {
	d := wire.Decoder{B: b, Whole: string(b)}
	items := wire.DecodeItems(&d, func(d *wire.Decoder) Pair { return Pair{Node: d.Str(), Other: d.Str()} })
	return Pairs{items}, d.End()
}

// LabelPartitioned is Label with the working graph gathered by partition: it takes
// edges as PCollection<KV<int, Pairs>> (any keys; each pair an undirected edge, either
// orientation, duplicates and self-loops allowed) and returns labels as
// PCollection<KV<int, Pairs>>, each pair (node, label), keyed by PartOf(node, parts), and
// unconverged as Label's.
//
// Each step of a round sorts a partition's edges by node and runs the per-node operation
// of Label on each node's group, so an element crossing a shuffle is a batch of edges,
// not one edge: a runner's cost is per element. The price is memory: a step holds a
// partition's edges (about the graph's 1/parts), not one neighbour at a time.
func LabelPartitioned(s beam.Scope, edges beam.PCollection, opts Options, parts int) (labels, unconverged beam.PCollection) {
	s = s.Scope("connectedcomponents.LabelPartitioned")
	rounds := opts.rounds()
	if parts < 1 {
		panic(fmt.Sprintf("connectedcomponents: LabelPartitioned with %d partitions, want >= 1", parts))
	}
	gather := func(s beam.Scope, col beam.PCollection) beam.PCollection {
		return beam.CombinePerKey(s, AppendPairs, col)
	}
	graph := beam.ParDo(s, &viewsFn{Parts: parts}, edges)
	for r := 1; r <= rounds; r++ {
		rs := s.Scope(fmt.Sprintf("Round%02d", r))
		stars := beam.ParDo(rs, &starPartFn{Round: r, Large: true, Parts: parts}, gather(rs, graph))
		graph = beam.ParDo(rs, &starPartFn{Round: r, Parts: parts}, gather(rs, stars))
	}
	ls := s.Scope("Label")
	labels, received := beam.ParDo2(ls, &labelPartFn{Parts: parts}, gather(ls, graph))
	cs := s.Scope("Check")
	disagreeing := beam.ParDo(cs, &checkPartFn{}, gather(cs, received))
	unconverged = stats.Sum(cs, beam.Flatten(cs, beam.Create(cs, int64(0)), disagreeing))
	return labels, unconverged
}

// out buffers a step's pairs by destination partition for the bundle.
type out struct {
	parts int
	buf   *batch.ByPartition[Pair]
}

func newOut(parts int) out { return out{parts: parts, buf: batch.New[Pair](parts, batchPairs)} }

// add sends the pair (node, other) to node's partition.
func (o out) add(node, other string, emit func(int, Pairs)) {
	o.buf.Add(PartOf(node, o.parts), Pair{node, other}, func(p int, items []Pair) { emit(p, Pairs{items}) })
}

// view sends an undirected edge to both views (toViews): each endpoint's partition
// holds the edge keyed by that endpoint, and a self-loop once.
func (o out) view(a, b string, emit func(int, Pairs)) {
	o.add(a, b, emit)
	if a != b {
		o.add(b, a, emit)
	}
}

func (o out) flush(emit func(int, Pairs)) {
	o.buf.Flush(func(p int, items []Pair) { emit(p, Pairs{items}) })
}

// eachNode sorts pairs by node, then other, and calls f once per node with its others
// in order.
func eachNode(pairs []Pair, f func(u string, others []string)) {
	slices.SortFunc(pairs, func(a, b Pair) int {
		if c := strings.Compare(a.Node, b.Node); c != 0 {
			return c
		}
		return strings.Compare(a.Other, b.Other)
	})
	var others []string
	for i, p := range pairs {
		others = append(others, p.Other)
		if i+1 == len(pairs) || pairs[i+1].Node != p.Node {
			f(p.Node, others)
			others = others[:0]
		}
	}
}

// each is the one-pass iterator over vs that the per-node operations read.
func each(vs []string) func(*string) bool {
	return func(v *string) bool {
		if len(vs) == 0 {
			return false
		}
		*v, vs = vs[0], vs[1:]
		return true
	}
}

// viewsFn sends the input edges to the working graph's views.
type viewsFn struct {
	Parts int
	out   out
}

func (f *viewsFn) StartBundle(_ func(int, Pairs)) { f.out = newOut(f.Parts) }

func (f *viewsFn) ProcessElement(_ int, p Pairs, emit func(int, Pairs)) {
	for _, e := range p.Items {
		f.out.view(e.Node, e.Other, emit)
	}
}

func (f *viewsFn) FinishBundle(emit func(int, Pairs)) { f.out.flush(emit) }

// starPartFn runs Large-Star (Large) or Small-Star on every node of a partition. Large-Star
// reads the working graph's views, a node's smaller neighbours (and its self-loop) and
// its larger ones, and emits each new edge keyed by its larger endpoint, where Small-Star
// reads it; Small-Star emits the next working graph's views.
type starPartFn struct {
	Round int
	Large bool
	Parts int

	out     out
	changed beam.Counter
}

func (f *starPartFn) Setup() {
	step := "small"
	if f.Large {
		step = "large"
	}
	f.changed = beam.NewCounter(metricsNamespace, fmt.Sprintf("cc_round_%02d_%s_star_changed", f.Round, step))
}

func (f *starPartFn) StartBundle(_ context.Context, _ func(int, Pairs)) { f.out = newOut(f.Parts) }

func (f *starPartFn) ProcessElement(ctx context.Context, _ int, p Pairs, emit func(int, Pairs)) {
	changed := 0
	eachNode(p.Items, func(u string, others []string) {
		if f.Large {
			// others are sorted: the smaller neighbours and the self-loop come first.
			n, _ := slices.BinarySearch(others, u+"\x00")
			changed += largeStar(u, each(others[:n]), each(others[n:]), func(v, m string) { f.out.add(v, m, emit) })
			return
		}
		changed += smallStar(u, each(others), each(others), func(v, m string) { f.out.view(v, m, emit) })
	})
	if changed > 0 {
		f.changed.Inc(ctx, int64(changed))
	}
}

func (f *starPartFn) FinishBundle(_ context.Context, emit func(int, Pairs)) { f.out.flush(emit) }

// labelPartFn runs labelNode on every node of a partition: the labels, (node, label),
// under the partition's own key, and the check messages, (target, label), to the
// target's partition.
type labelPartFn struct {
	Parts int
	out   out
}

func (f *labelPartFn) StartBundle(_, _ func(int, Pairs)) { f.out = newOut(f.Parts) }

func (f *labelPartFn) ProcessElement(part int, p Pairs, emitLabel, emitCheck func(int, Pairs)) {
	var labels []Pair
	eachNode(p.Items, func(u string, others []string) {
		n, _ := slices.BinarySearch(others, u+"\x00")
		labelNode(u, each(others[:n]), each(others[n:]),
			func(node, label string) { labels = append(labels, Pair{node, label}) },
			func(target, label string) { f.out.add(target, label, emitCheck) })
	})
	for len(labels) > 0 {
		n := min(len(labels), batchPairs)
		emitLabel(part, Pairs{labels[:n:n]})
		labels = labels[n:]
	}
}

func (f *labelPartFn) FinishBundle(_, emitCheck func(int, Pairs)) { f.out.flush(emitCheck) }

// checkPartFn counts the nodes of a partition that received more than one label.
type checkPartFn struct {
	unconverged beam.Counter
}

func (f *checkPartFn) Setup() {
	f.unconverged = beam.NewCounter(metricsNamespace, "cc_unconverged_nodes")
}

func (f *checkPartFn) ProcessElement(ctx context.Context, _ int, p Pairs, emit func(int64)) {
	var n int64
	eachNode(p.Items, func(_ string, labels []string) {
		if !agree(each(labels)) {
			n++
		}
	})
	if n > 0 {
		f.unconverged.Inc(ctx, n)
		emit(n)
	}
}
