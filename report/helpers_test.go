package report_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/gen"
	"github.com/neardup/neardup/gen/gentest"
	"github.com/neardup/neardup/internal/prismtest"
	"github.com/neardup/neardup/internal/repotest"
	"github.com/neardup/neardup/pipeline"
)

// TestMain runs the dedup jobs the tests look at on Prism.
func TestMain(m *testing.M) { prismtest.Main(m) }

// dedupSeed runs dedup on the seed article's corpus (word bigrams, threshold 0.8) and
// returns the output directory, report.html included.
func dedupSeed(t *testing.T) string {
	cfg := pipeline.DefaultConfig()
	cfg.Inputs = []string{filepath.Join(repotest.Root(t), "testdata", "seed.jsonl")}
	cfg.Shingle.N = 2
	return dedup(t, cfg)
}

// dedupGenerated runs dedup on a generated corpus of n documents with planted
// near-duplicates in every script gen writes (Latin, Cyrillic, CJK).
func dedupGenerated(t *testing.T, n int) string {
	cfg := pipeline.DefaultConfig()
	cfg.Inputs = []string{gentest.Corpus(t, n, 1, gen.Defaults().DupFraction)}
	return dedup(t, cfg)
}

func dedup(t *testing.T, cfg pipeline.Config) string {
	t.Helper()
	cfg.Output = filepath.Join(t.TempDir(), "out")
	cfg.Quiet = true
	st, err := pipeline.Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	require.Empty(t, st.Warnings)
	require.FileExists(t, filepath.Join(cfg.Output, "report.html"))
	return cfg.Output
}

func readStats(t *testing.T, dir string) map[string]int64 {
	var st struct {
		Counts map[string]int64 `json:"counts"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "stats.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &st))
	return st.Counts
}

// removedTexts maps each removed id to its text, from removed.jsonl.
func removedTexts(t *testing.T, dir string) map[string]string {
	b, err := os.ReadFile(filepath.Join(dir, "removed.jsonl"))
	require.NoError(t, err)
	out := map[string]string{}
	dec := json.NewDecoder(bytesReader(b))
	for dec.More() {
		var r struct {
			ID     string `json:"id"`
			Record struct {
				Text string `json:"text"`
			} `json:"record"`
		}
		require.NoError(t, dec.Decode(&r))
		out[r.ID] = r.Record.Text
	}
	return out
}
