package cluster

import (
	"fmt"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/neardup/neardup/internal/prismtest"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/stagetest"
	"github.com/stretchr/testify/require"
)

// TestClusterTransform runs the Cluster transform alone on hand-made verified edges, in
// both modes: a chain a-b-c and a pair d-e become two clusters named by their smallest
// ids, and under keep=longest the longest member is kept.
func TestClusterTransform(t *testing.T) {
	edges := []elem.Edge{
		{U: "b", V: "c", Sim: 0.9, ULen: 10, VLen: 30},
		{U: "a", V: "b", Sim: 0.8, ULen: 20, VLen: 10},
		{U: "d", V: "e", Sim: 1, ULen: 5, VLen: 5},
	}
	for _, tc := range []struct {
		cc, keep string
		lines    []string
	}{
		{Local, KeepSmallestID, []string{
			`{"cluster":"a","size":3,"kept":"a","members":["a","b","c"]}`,
			`{"cluster":"d","size":2,"kept":"d","members":["d","e"]}`}},
		{Distributed, KeepLongest, []string{
			`{"cluster":"a","size":3,"kept":"c","members":["a","b","c"]}`,
			`{"cluster":"d","size":2,"kept":"d","members":["d","e"]}`}},
	} {
		t.Run(tc.cc+"/"+tc.keep, func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			in := beam.ParDo(s, singleEdge, beam.CreateList(s, edges))
			_, lines, _ := Cluster(s, in, Options{CC: tc.cc, Rounds: 12, Partitions: 4, Keep: tc.keep})
			passert.Equals(s, stagetest.Lines(s, lines), stagetest.Any(tc.lines)...)
			require.NoError(t, ptest.Run(p))
		})
	}
}

func init() {
	register.Function2x0(singleEdge)
}

// singleEdge puts one edge in a batch under key 0, as features.Collapse emits them.
func singleEdge(e elem.Edge, emit func(int, elem.EdgeBatch)) {
	emit(0, elem.EdgeBatch{Items: []elem.Edge{e}})
}

// TestMain runs the tests on Prism.
func TestMain(m *testing.M) { prismtest.Main(m) }

// TestLocalEdgesBounded: --cc local gathers a producer's batch of any size under its one
// key as batches of at most elem.ShuffleBytes, every edge once.
func TestLocalEdgesBounded(t *testing.T) {
	var in []elem.Edge
	for i := range 50_000 {
		in = append(in, elem.Edge{U: fmt.Sprintf("doc-%08d", i), V: fmt.Sprintf("doc-%08d", i+1), Sim: 1})
	}
	var got []elem.Edge
	localEdges(3, elem.EdgeBatch{Items: in}, func(k int, b elem.EdgeBatch) {
		require.Zero(t, k, "the key")
		require.LessOrEqual(t, len(elem.Edges.Encode(b)), elem.ShuffleBytes, "an encoded batch")
		got = append(got, b.Items...)
	})
	require.Equal(t, in, got)
}
