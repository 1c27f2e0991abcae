package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDataflowDryRun is all that is checked of Dataflow here (there is no project to
// submit to): the Go SDK's Dataflow runner translates the dedup job without submitting
// it, and neardup then says so, exits 0, and writes and commits nothing, leaving the
// runner's log with the job graph.
func TestDataflowDryRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	seed := filepath.Join(repoRoot(t), "testdata", "seed.jsonl")
	_, stderr := neardup(t, nil, "dedup", "--input", seed, "--output", out, "--ngram", "2", "--threshold", "0.8",
		"--runner=dataflow", "--dry_run", "--project=neardup-test", "--region=us-central1",
		"--temp_location=gs://neardup-test/tmp", "--staging_location=gs://neardup-test/staging",
		"--worker_binary="+filepath.Join(binaries(t), "neardup"))
	assert.Contains(t, stderr, "dry run: the runner translated the job and did not submit it")

	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	var logs []string
	for _, e := range entries {
		require.True(t, strings.HasPrefix(e.Name(), ".neardup-tmp-"), "a dry run commits nothing, found %s", e.Name())
		sub, err := os.ReadDir(filepath.Join(out, e.Name()))
		require.NoError(t, err)
		for _, f := range sub {
			require.Equal(t, "beam.log", f.Name(), "only the runner's log is left")
			logs = append(logs, filepath.Join(out, e.Name(), f.Name()))
		}
	}
	require.Len(t, logs, 1, "the runner's log is kept")
	b, err := os.ReadFile(logs[0])
	require.NoError(t, err)
	assert.Contains(t, string(b), "Dry-run: not submitting job!")
	assert.Contains(t, string(b), "source.Read", "the log holds the job graph")
}
