package pipeline

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/report"
)

// The page a run builds from the kept records it copied for the report (sink.ReportTexts)
// is the page built afterwards from the whole kept output: every text it shows was
// copied, including those of pairs near the threshold that are in no cluster.
func TestRunReportMatchesReportFromTheOutputs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{genCorpus(t, 600, 11)}, t.TempDir()
	cfg.Threshold = 0.5
	out, _ := dedup(t, cfg)

	var sims report.Similarities
	require.NoError(t, json.Unmarshal([]byte(out[report.SimilaritiesFile]), &sims))
	clustered := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out[clustersFile]), "\n") {
		var c struct{ Members []string }
		require.NoError(t, json.Unmarshal([]byte(l), &c))
		for _, m := range c.Members {
			clustered[m] = true
		}
	}
	lone := 0
	for _, p := range sims.HighestRejected {
		for _, id := range []string{p.A, p.B} {
			if !clustered[id] {
				lone++
			}
		}
	}
	require.Greater(t, lone, 0, "the corpus must have rejected pairs of unclustered documents, whose texts the page shows")

	page, err := report.Build(context.Background(), cfg.Output, report.Options{Clusters: cfg.ReportClusters, Name: cfg.Output})
	require.NoError(t, err)
	assert.True(t, string(page) == out[report.HTMLFile], "report.html differs from the page built from the outputs")
}
