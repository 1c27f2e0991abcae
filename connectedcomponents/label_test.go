package connectedcomponents

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/prismtest"
)

// Pipeline tests on the real Prism runner. Each pipeline is 2·Rounds+2
// GroupByKeys, so cases share pipelines where they can: disjoint graphs with
// distinct id prefixes are one graph whose components are the union.

func TestMain(m *testing.M) { prismtest.Main(m) }

func init() {
	register.Function2x1(formatLabel)
	register.Function2x1(labelKey)
	register.DoFn3x1[string, string, func(int64), error](&mismatchFn{})
	register.Function2x1(consistent)
	register.Function1x1(positive)
	register.Function1x2(splitEdge)
}

func formatLabel(node, label string) string { return node + "\t" + label }

func labelKey(node, _ string) string { return node }

// mismatchFn emits 1 for every label that differs from Want, and fails the
// pipeline when a label breaks the guarantee that holds at any round (a
// label of the same component, never larger than the node).
type mismatchFn struct{ Want map[string]string }

func (f *mismatchFn) ProcessElement(node, label string, emit func(int64)) error {
	want, ok := f.Want[node]
	switch {
	case !ok:
		return fmt.Errorf("label for unknown node %q", node)
	case label > node || f.Want[label] != want:
		return fmt.Errorf("unsafe label %q for node %q (component minimum %q)", label, node, want)
	case label != want:
		emit(1)
	}
	return nil
}

// consistent fails unless unconverged is 0 exactly when no label is wrong.
func consistent(unconverged, mismatches int64) error {
	if (unconverged == 0) != (mismatches == 0) {
		return fmt.Errorf("unconverged = %d but %d labels differ from Reference", unconverged, mismatches)
	}
	return nil
}

func positive(n int64) error {
	if n <= 0 {
		return fmt.Errorf("unconverged = %d, want > 0", n)
	}
	return nil
}

// toKVs makes a KV<string,string> PCollection of edges: beam.Create has no
// KV form, so they travel as "a\tb" lines and are split.
func toKVs(s beam.Scope, edges []edge) beam.PCollection {
	lines := make([]string, len(edges))
	for i, e := range edges {
		lines[i] = e[0] + "\t" + e[1]
	}
	return beam.ParDo(s, splitEdge, beam.CreateList(s, lines))
}

func splitEdge(line string) (string, string) {
	a, b, _ := strings.Cut(line, "\t")
	return a, b
}

// assertLabels checks labels against Reference exactly (node set included)
// and unconverged against 0.
func assertLabels(s beam.Scope, edges []edge, labels, unconverged beam.PCollection) {
	want := Reference(edges)
	lines := make([]any, 0, len(want))
	for n, l := range want {
		lines = append(lines, formatLabel(n, l))
	}
	passert.Equals(s, beam.ParDo(s, formatLabel, labels), lines...)
	passert.Equals(s, unconverged, int64(0))
}

// assertConsistent checks what must hold whether or not the rounds were
// enough: one label per node, every label safe, and unconverged == 0 iff
// every label equals Reference's.
func assertConsistent(s beam.Scope, edges []edge, labels, unconverged beam.PCollection) {
	want := Reference(edges)
	nodes := make([]any, 0, len(want))
	for n := range want {
		nodes = append(nodes, n)
	}
	passert.Equals(s, beam.ParDo(s, labelKey, labels), nodes...)
	ones := beam.ParDo(s, &mismatchFn{Want: want}, labels)
	mismatches := stats.Sum(s, beam.Flatten(s, beam.Create(s, int64(0)), ones))
	beam.ParDo0(s, consistent, unconverged, beam.SideInput{Input: mismatches})
}

func TestLabelRandomGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	var edges []edge
	// Several sizes and densities in one pipeline: below, near and above the
	// giant-component threshold (m ≈ n/2), each with its own id prefix.
	for i, tc := range []struct{ n, m int }{{5, 3}, {40, 15}, {100, 50}, {300, 150}, {300, 600}, {2000, 1000}, {2000, 4000}} {
		edges = append(edges, randomGraph(rng, fmt.Sprintf("g%d-", i), tc.n, tc.m)...)
	}
	p, s := beam.NewPipelineWithRoot()
	labels, unconverged := Label(s, toKVs(s, edges), Options{})
	assertLabels(s, edges, labels, unconverged)
	ptest.RunAndValidate(t, p)
}

func TestLabelShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	var edges []edge
	// A star whose centre is neither smallest nor largest, with many leaves
	// (BenchmarkLabelStar runs 100,000; Prism costs about 15 µs of CPU per
	// shuffled element, so tests stay small).
	edges = append(edges, star(rng, "a500", shuffledIDs(rng, "a", 3000))...)
	// Several disjoint small components, duplicates and self-loops: an
	// isolated self-loop node must still get a label.
	edges = append(edges,
		edge{"x", "x"}, edge{"x", "x"}, edge{"y", "z"}, edge{"z", "y"}, edge{"y", "z"}, edge{"z", "z"},
		edge{"w1", "w2"}, edge{"w2", "w3"}, edge{"w3", "w1"}, edge{"w10", "w9"})
	for i := range 5 {
		edges = append(edges, chain(rng, fmt.Sprintf("c%d-", i), 20+i)...)
	}
	p, s := beam.NewPipelineWithRoot()
	labels, unconverged := Label(s, toKVs(s, edges), Options{})
	assertLabels(s, edges, labels, unconverged)
	res := ptest.RunAndValidate(t, p)

	assertConvergedEarly(t, res)
}

// assertConvergedEarly: the graphs of these tests converge long before the
// twelfth round: the last rounds rewrite nothing, and the counters say so.
func assertConvergedEarly(t *testing.T, res beam.PipelineResult) {
	t.Helper()
	counters := map[string]int64{}
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Namespace() == metricsNamespace {
			counters[c.Name()] += c.Result()
		}
	}
	assert.Positive(t, counters["cc_round_01_large_star_changed"]+counters["cc_round_01_small_star_changed"])
	assert.Zero(t, counters["cc_round_12_large_star_changed"])
	assert.Zero(t, counters["cc_round_12_small_star_changed"])
	assert.Zero(t, counters["cc_unconverged_nodes"])
}

func TestLabelChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	edges := chain(rng, "n", 1000)
	p, s := beam.NewPipelineWithRoot()
	labels, unconverged := Label(s, toKVs(s, edges), Options{})
	assertConsistent(s, edges, labels, unconverged)
	ptest.RunAndValidate(t, p)
}

func TestLabelTooFewRounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 17))
	edges := chain(rng, "n", 1000)
	p, s := beam.NewPipelineWithRoot()
	labels, unconverged := Label(s, toKVs(s, edges), Options{Rounds: 1})
	assertConsistent(s, edges, labels, unconverged)
	beam.ParDo0(s, positive, unconverged)
	res := ptest.RunAndValidate(t, p)

	var reported int64
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Namespace() == metricsNamespace && c.Name() == "cc_unconverged_nodes" {
			reported += c.Result()
		}
	}
	assert.Positive(t, reported)
}

// TestLabelContinue is the driver loop: a run that stops unconverged hands
// its working graph to a second pipeline, which finishes the job.
func TestLabelContinue(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 19))
	edges := chain(rng, "n", 300)
	// The first pipeline's working graph must be exactly the in-memory
	// round's; the second pipeline continues from it, as a driver would
	// from saved files.
	p, s := beam.NewPipelineWithRoot()
	_, unconverged, graph := LabelWithGraph(s, toKVs(s, edges), Options{Rounds: 1})
	beam.ParDo0(s, positive, unconverged)
	want := memRound(edges) // the same single round, in memory
	lines := make([]any, len(want))
	for i, e := range want {
		lines[i] = formatLabel(e[0], e[1])
	}
	passert.Equals(s, beam.ParDo(s, formatLabel, graph), lines...)
	ptest.RunAndValidate(t, p)

	p2, s2 := beam.NewPipelineWithRoot()
	labels, unconverged2 := Label(s2, toKVs(s2, want), Options{})
	assertLabels(s2, edges, labels, unconverged2)
	ptest.RunAndValidate(t, p2)
}

func TestLabelEmpty(t *testing.T) {
	p, s := beam.NewPipelineWithRoot()
	edges := beam.ParDo(s, splitEdge, beam.CreateList(s, []string{}))
	labels, unconverged := Label(s, edges, Options{Rounds: 2})
	passert.Empty(s, labels)
	passert.Equals(s, unconverged, int64(0))
	ptest.RunAndValidate(t, p)
}

func TestLabelBadInput(t *testing.T) {
	_, s := beam.NewPipelineWithRoot()
	require.PanicsWithValue(t,
		"connectedcomponents: edges must be a PCollection<KV<string,string>>, got int",
		func() { Label(s, beam.Create(s, 1, 2), Options{}) })
	require.Panics(t, func() { Label(s, toKVs(s, nil), Options{Rounds: -1}) })
}
