package cluster

import (
	"fmt"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/stagetest"
)

const fatePartitions = 3

func init() {
	register.DoFn3x0[int, elem.FateBatch, func(string)](&fateTextsFn{})
}

// fateTextsFn writes each fate as "id cluster kept|removed sim size" with the users'
// ids, marked when it is not keyed by its id's partition, where Decide looks for it.
type fateTextsFn struct{ Partitions int }

func (f *fateTextsFn) ProcessElement(p int, b elem.FateBatch, emit func(string)) {
	for _, ft := range b.Items {
		verdict := "kept"
		if ft.Removed {
			verdict = "removed"
		}
		s := fmt.Sprintf("%s %s %s %.2f %d", elem.ExternalID(ft.ID), elem.ExternalID(ft.Cluster), verdict, ft.Sim, ft.Size)
		if p != elem.PartOfString(ft.ID, f.Partitions) {
			s += fmt.Sprintf(" in partition %d", p)
		}
		emit(s)
	}
}

// TestClusterFates runs Cluster alone, under both connected-components modes, and checks
// each clustered document's fate: its cluster's kept member, whether it is removed, its
// best similarity to a verified neighbour and its cluster's size. Indexed documents win
// their cluster and get no fate; a preferred one wins over input documents whatever the
// policy; under a field policy every member is only labelled, with no line yet.
func TestClusterFates(t *testing.T) {
	chain := []elem.Edge{
		{U: "b", V: "c", Sim: 0.9, ULen: 10, VLen: 30},
		{U: "a", V: "b", Sim: 0.8, ULen: 20, VLen: 10},
		{U: "d", V: "e", Sim: 1, ULen: 5, VLen: 5},
	}
	indexed, preferred := elem.IndexedID(0, "x"), elem.PreferredPrefix+"p"
	for _, tc := range []struct {
		name  string
		keep  string
		edges []elem.Edge
		fates []string
		lines int
	}{
		{name: "smallest id", keep: KeepSmallestID, edges: chain, lines: 2, fates: []string{
			"a a kept 0.80 3", "b a removed 0.90 3", "c a removed 0.90 3", "d d kept 1.00 2", "e d removed 1.00 2"}},
		{name: "longest", keep: KeepLongest, edges: chain, lines: 2, fates: []string{
			"a c removed 0.80 3", "b c removed 0.90 3", "c c kept 0.90 3", "d d kept 1.00 2", "e d removed 1.00 2"}},
		{name: "field labels only", keep: KeepFieldPrefix + "stars:max", edges: chain, fates: []string{
			"a a kept 0.80 3", "b a kept 0.90 3", "c a kept 0.90 3", "d d kept 1.00 2", "e d kept 1.00 2"}},
		{name: "indexed wins", keep: KeepLongest, lines: 1,
			edges: []elem.Edge{{U: indexed, V: "a", Sim: 0.85, ULen: 1, VLen: 99}, {U: "a", V: "b", Sim: 0.95, ULen: 99, VLen: 100}},
			fates: []string{"a x removed 0.95 3", "b x removed 0.95 3"}},
		{name: "preferred wins", keep: KeepLongest, lines: 1,
			edges: []elem.Edge{{U: preferred, V: "a", Sim: 0.85, ULen: 1, VLen: 99}},
			fates: []string{"p p kept 0.85 2", "a p removed 0.85 2"}},
	} {
		for _, cc := range []string{Local, Distributed} {
			t.Run(tc.name+"/"+cc, func(t *testing.T) {
				p, s := beam.NewPipelineWithRoot()
				in := beam.ParDo(s, singleEdge, beam.CreateList(s, tc.edges))
				fates, lines, _ := Cluster(s, in, Options{CC: cc, Rounds: 12, Partitions: fatePartitions, Keep: tc.keep})
				passert.Equals(s, beam.ParDo(s, &fateTextsFn{Partitions: fatePartitions}, fates), stagetest.Any(tc.fates)...)
				passert.Count(s, stagetest.Lines(s, lines), "lines", tc.lines)
				require.NoError(t, ptest.Run(p))
			})
		}
	}
}
