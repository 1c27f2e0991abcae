package connectedcomponents

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

func init() {
	register.Function1x2(keyPairs)
	register.Function3x0(unbatchLabels)
	register.Function3x1(labelInPartition)
}

// partitioned makes edges a PCollection<KV<int, Pairs>>, in batches of three under
// key 0 (the input's keys mean nothing to LabelPartitioned).
func partitioned(s beam.Scope, edges []edge) beam.PCollection {
	var batches []Pairs
	for i := 0; i < len(edges); i += 3 {
		var b Pairs
		for _, e := range edges[i:min(i+3, len(edges))] {
			b.Items = append(b.Items, Pair{e[0], e[1]})
		}
		batches = append(batches, b)
	}
	return beam.ParDo(s, keyPairs, beam.CreateList(s, batches))
}

func keyPairs(p Pairs) (int, Pairs) { return 0, p }

// unbatchLabels flattens the labels into Label's form, KV<node, label>.
func unbatchLabels(_ int, p Pairs, emit func(string, string)) {
	for _, x := range p.Items {
		emit(x.Node, x.Other)
	}
}

// labelInPartition fails unless every label is keyed by its node's partition.
func labelInPartition(part int, p Pairs, parts int) error {
	for _, x := range p.Items {
		if PartOf(x.Node, parts) != part {
			return fmt.Errorf("label of %q under partition %d, want %d", x.Node, part, PartOf(x.Node, parts))
		}
	}
	return nil
}

func labelPartitioned(s beam.Scope, edges []edge, o Options, parts int) (labels, unconverged beam.PCollection) {
	l, u := LabelPartitioned(s, partitioned(s, edges), o, parts)
	beam.ParDo0(s, labelInPartition, l, beam.SideInput{Input: beam.Create(s, parts)})
	return beam.ParDo(s, unbatchLabels, l), u
}

// The graphs of TestLabelRandomGraphs and TestLabelShapes in one pipeline, on few and
// many partitions: the labels are Reference's.
func TestLabelPartitioned(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	var edges []edge
	for i, tc := range []struct{ n, m int }{{5, 3}, {40, 15}, {300, 150}, {300, 600}, {2000, 1000}, {2000, 4000}} {
		edges = append(edges, randomGraph(rng, fmt.Sprintf("g%d-", i), tc.n, tc.m)...)
	}
	edges = append(edges, star(rng, "a500", shuffledIDs(rng, "a", 3000))...)
	edges = append(edges,
		edge{"x", "x"}, edge{"x", "x"}, edge{"y", "z"}, edge{"z", "y"}, edge{"y", "z"}, edge{"z", "z"},
		edge{"w1", "w2"}, edge{"w2", "w3"}, edge{"w3", "w1"}, edge{"w10", "w9"}, edge{"v", "v\x00"}, edge{"v\x00a", "v"})
	for i := range 5 {
		edges = append(edges, chain(rng, fmt.Sprintf("c%d-", i), 20+i)...)
	}
	for _, parts := range []int{1, 7, 64} {
		t.Run(fmt.Sprint(parts), func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			labels, unconverged := labelPartitioned(s, edges, Options{}, parts)
			assertLabels(s, edges, labels, unconverged)
			assertConvergedEarly(t, ptest.RunAndValidate(t, p))
		})
	}
}

// A chain needs about log2(n) rounds: one round leaves it unconverged, and says so, with
// every label still safe; the default rounds label it exactly.
func TestLabelPartitionedChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	edges := chain(rng, "n", 1000)
	p, s := beam.NewPipelineWithRoot()
	labels, unconverged := labelPartitioned(s.Scope("one"), edges, Options{Rounds: 1}, 16)
	assertConsistent(s, edges, labels, unconverged)
	beam.ParDo0(s, positive, unconverged)
	labels, unconverged = labelPartitioned(s.Scope("all"), edges, Options{}, 16)
	assertLabels(s, edges, labels, unconverged)
	ptest.RunAndValidate(t, p)
}

func TestLabelPartitionedEmpty(t *testing.T) {
	p, s := beam.NewPipelineWithRoot()
	labels, unconverged := labelPartitioned(s, nil, Options{Rounds: 2}, 4)
	assertLabels(s, nil, labels, unconverged)
	ptest.RunAndValidate(t, p)
}
