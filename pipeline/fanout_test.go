package pipeline

import (
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph"
	"github.com/stretchr/testify/require"
)

// TestFirstStageFanOut: the featurizing step, fused with the reading into the job's
// largest stage, has no output beyond what the later stages use (no edges to looked-up
// indexes without --against), and its band entries and set fingerprints go straight
// into their grouping, with no Flatten before it. Flink's batch translator sends each
// element of a fused stage to every output of the stage, and writes a flattened input
// once more, so either would cost another pass over the band entries.
func TestFirstStageFanOut(t *testing.T) {
	edges, _, err := graphFor(t, DefaultConfig()).Build()
	require.NoError(t, err)
	consumers := map[*graph.Node][]*graph.MultiEdge{}
	for _, e := range edges {
		for _, in := range e.Input {
			consumers[in.From] = append(consumers[in.From], e)
		}
	}
	var sign *graph.MultiEdge
	for _, e := range edges {
		if e.Op == graph.ParDo && strings.HasPrefix(shortName(e.DoFn.Name()), "pipeline/internal/features.") &&
			strings.Contains(e.Scope().String(), "features.Sign") && len(e.Output) > 1 {
			sign = e
		}
	}
	require.NotNil(t, sign, "no featurizing step in the graph")
	require.Len(t, sign.Output, 3, "%s: outputs beyond set fingerprints, band entries and counts", sign.DoFn.Name())
	for i, what := range []string{"set fingerprints", "band entries"} {
		cs := consumers[sign.Output[i].To]
		require.Len(t, cs, 1, "%s: consumed by %d steps", what, len(cs))
		require.Equal(t, graph.CoGBK, cs[0].Op, "%s: consumed by %s, not grouped directly", what, cs[0].Op)
	}
}
