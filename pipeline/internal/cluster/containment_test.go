package cluster

import (
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/tally/tallytest"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/stagetest"
)

// TestContainment runs Containment alone on hand-made exact-duplicate and containment
// edges (container first), both under key 0, and checks the rule of package
// containment: a document is kept unless contained in a kept document; a removed one
// joins the kept container it is most contained in, ties to the smaller id; in a chain
// a ⊂ b ⊂ c, a is removed into c only when contained in c too, and otherwise kept in
// no cluster; exact duplicates are decided as one by their smallest id. Fates are keyed
// by id partition; each cluster is labelled by its smallest id, has one line and is
// counted.
func TestContainment(t *testing.T) {
	in := func(container, member string, sim float64) elem.Edge {
		return elem.Edge{U: container, V: member, Sim: sim}
	}
	for _, tc := range []struct {
		name            string
		dups, contained []elem.Edge
		fates, lines    []string
		largest         int64
	}{
		{name: "chain contained in its top",
			contained: []elem.Edge{in("c", "b", 0.9), in("b", "a", 0.8), in("c", "a", 0.85)},
			fates:     []string{"a c removed 0.85 3", "b c removed 0.90 3", "c c kept 0.90 3"},
			lines:     []string{`{"cluster":"a","size":3,"kept":"c","members":["a","b","c"]}`}, largest: 3},
		{name: "chain, its bottom kept",
			contained: []elem.Edge{in("b", "a", 0.8), in("c", "b", 0.9)},
			fates:     []string{"b c removed 0.90 2", "c c kept 0.90 2"},
			lines:     []string{`{"cluster":"b","size":2,"kept":"c","members":["b","c"]}`}, largest: 2},
		{name: "most contained, ties to the smaller id",
			contained: []elem.Edge{in("x", "m", 0.8), in("y", "m", 0.9), in("y", "n", 0.9), in("x", "n", 0.9)},
			fates:     []string{"m y removed 0.90 2", "y y kept 0.90 2", "n x removed 0.90 2", "x x kept 0.90 2"},
			lines: []string{`{"cluster":"m","size":2,"kept":"y","members":["m","y"]}`,
				`{"cluster":"n","size":2,"kept":"x","members":["n","x"]}`}, largest: 2},
		{name: "exact duplicates decided as one",
			dups:      []elem.Edge{{U: "s", V: "t", Sim: 1}, {U: "p", V: "q", Sim: 1}},
			contained: []elem.Edge{in("r", "p", 0.85)},
			fates:     []string{"s s kept 1.00 2", "t s removed 1.00 2", "p r removed 0.85 3", "q r removed 0.85 3", "r r kept 0.85 3"},
			lines: []string{`{"cluster":"s","size":2,"kept":"s","members":["s","t"]}`,
				`{"cluster":"p","size":3,"kept":"r","members":["p","q","r"]}`}, largest: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			fates, lines, counts := Containment(s, beam.ParDo(s, singleEdge, beam.CreateList(s, tc.dups)),
				beam.ParDo(s, singleEdge, beam.CreateList(s, tc.contained)), fatePartitions)
			passert.Equals(s, beam.ParDo(s, &fateTextsFn{Partitions: fatePartitions}, fates), stagetest.Any(tc.fates)...)
			passert.Equals(s, stagetest.Lines(s, lines), stagetest.Any(tc.lines)...)
			got := tallytest.Run(t, p, s, counts)
			require.Equal(t, int64(len(tc.lines)), got[ClustersCount])
			require.Equal(t, tc.largest, got[LargestClusterCount])
		})
	}
}
