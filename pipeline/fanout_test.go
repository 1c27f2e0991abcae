package pipeline

import (
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph"
	"github.com/stretchr/testify/require"
)

// TestFirstStageFanOut: the first stage (reading, locating, featurizing) has one
// output: everything the reading step makes reaches one grouping, elem.SplitFirst's,
// through ParDos and Flattens only, which the runner fuses into the stage. Flink's batch
// translator sends each element of a fused stage to every output of the stage, so
// each further output would cost another pass over the band entries.
func TestFirstStageFanOut(t *testing.T) {
	edges, _, err := graphFor(t, DefaultConfig()).Build()
	require.NoError(t, err)
	consumers := map[*graph.Node][]*graph.MultiEdge{}
	for _, e := range edges {
		for _, in := range e.Input {
			consumers[in.From] = append(consumers[in.From], e)
		}
	}
	var read *graph.MultiEdge
	for _, e := range edges {
		if e.Op == graph.ParDo && strings.HasSuffix(e.DoFn.Name(), "io/source.readFn") {
			read = e
		}
	}
	require.NotNil(t, read, "no reading step in the graph")
	seen := map[*graph.Node]bool{}
	var frontier []*graph.Node
	for _, o := range read.Output {
		frontier = append(frontier, o.To)
	}
	outputs := map[*graph.MultiEdge]bool{}
	for len(frontier) > 0 {
		n := frontier[0]
		frontier = frontier[1:]
		if seen[n] {
			continue
		}
		seen[n] = true
		for _, c := range consumers[n] {
			if c.Op == graph.ParDo || c.Op == graph.Flatten {
				for _, o := range c.Output {
					frontier = append(frontier, o.To)
				}
				continue
			}
			outputs[c] = true
		}
	}
	require.Len(t, outputs, 1, "the first stage's outputs")
	for c := range outputs {
		require.Equal(t, graph.CoGBK, c.Op)
		require.Contains(t, c.Scope().String(), "elem.SplitFirst")
	}
}
