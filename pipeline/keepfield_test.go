package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/pipeline/internal/cluster"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/repotest"
	"github.com/neardup/neardup/io/parquetfile/parquettest"
)

// keptOf maps each cluster (by its smallest id) to the member clusters.jsonl says was kept.
// Validate names --keep for every malformed field policy.
func TestValidateRejectsMalformedKeepField(t *testing.T) {
	for _, bad := range []string{"field:", "field:stars", "field::max", "field:stars:largest"} {
		cfg := DefaultConfig()
		cfg.Inputs, cfg.Output, cfg.Keep = []string{"x.jsonl"}, "out", Keep(bad)
		assert.ErrorContains(t, cfg.Validate(), "--keep", bad)
	}
}

func keptOf(t *testing.T, clusters string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(clusters), "\n") {
		var c cluster.Line
		require.NoError(t, json.Unmarshal([]byte(l), &c), l)
		out[c.Cluster] = c.Kept
	}
	return out
}

// fieldCorpus has four clusters of exact duplicates, each testing one rule.
func fieldCorpus(t *testing.T) string {
	text := func(n int) string { return words(n*100, 12) }
	doc := func(id string, n int, extra string) string {
		b, _ := json.Marshal(text(n))
		return `{"id":"` + id + `",` + extra + `"text":` + string(b) + `}`
	}
	return writeLines(t, filepath.Join(t.TempDir(), "c.jsonl"),
		// numbers, exactly: B and C differ past float64 precision; D has none, E null.
		doc("A", 1, `"stars":5,`), doc("B", 1, `"stars":12345678901234567891,`),
		doc("C", 1, `"stars":12345678901234567890,`), doc("D", 1, ``), doc("E", 1, `"stars":null,`),
		// a tie: the smallest id wins, whatever the order.
		doc("G", 2, `"stars":7,`), doc("F", 2, `"stars":7,`), doc("H", 2, `"stars":1.5e1,`),
		// strings (ISO dates) order byte-wise; an object counts as missing.
		doc("I", 3, `"stars":"2021-01-01",`), doc("J", 3, `"stars":"2023-05-01",`), doc("K", 3, `"stars":{"n":9},`),
		// nobody has the field: the smallest id.
		doc("M", 4, `"x":1,`), doc("L", 4, ``),
		doc("solo", 5, `"stars":100,`),
	)
}

func TestKeepFieldJSONL(t *testing.T) {
	in := fieldCorpus(t)
	for _, tc := range []struct {
		keep Keep
		want map[string]string
	}{
		{"field:stars:max", map[string]string{"A": "B", "F": "H", "I": "J", "L": "L"}},
		{"field:stars:min", map[string]string{"A": "A", "F": "F", "I": "I", "L": "L"}},
	} {
		t.Run(string(tc.keep), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Inputs, cfg.Output, cfg.Keep = []string{in}, t.TempDir(), tc.keep
			out, st := dedup(t, cfg)
			assert.Equal(t, tc.want, keptOf(t, out[clustersFile]))
			assert.Equal(t, int64(5), st.Counts["kept"])
			assert.Equal(t, string(tc.keep), st.Parameters.Keep)
			removed := parseRemoved(t, out["removed.jsonl"])
			assert.Len(t, removed, 9)
			for id, r := range removed {
				assert.Equal(t, tc.want[clusterOf(id)], r.Cluster, id)
				assert.NotEqual(t, r.Cluster, id)
			}
			for _, kept := range tc.want {
				assert.Contains(t, out["kept.jsonl"], `"id":"`+kept+`"`)
			}

			// Distributed connected components and another partition count decide the same.
			cfg2 := cfg
			cfg2.Output, cfg2.CC, cfg2.Partitions = t.TempDir(), cluster.Distributed, 3
			out2, _ := dedup(t, cfg2)
			for _, name := range []string{"kept.jsonl", "removed.jsonl", clustersFile} {
				assert.Equal(t, out[name], out2[name], name)
			}
		})
	}
}

func clusterOf(id string) string {
	switch id {
	case "A", "B", "C", "D", "E":
		return "A"
	case "F", "G", "H":
		return "F"
	case "I", "J", "K":
		return "I"
	}
	return "L"
}

func TestKeepFieldMixedTypesFailNamingBothRecords(t *testing.T) {
	in := writeLines(t, filepath.Join(t.TempDir(), "m.jsonl"),
		`{"id":"a","score":3,"text":"one two three four five six"}`,
		`{"id":"b","score":"high","text":"one two three four five six"}`)
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.Keep = []string{in}, t.TempDir(), "field:score:max"
	_, err := Run(context.Background(), cfg, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "field:score")
	assert.Contains(t, err.Error(), in+":1")
	assert.Contains(t, err.Error(), in+":2")
	entries, _ := os.ReadDir(cfg.Output)
	for _, e := range entries {
		assert.True(t, strings.HasPrefix(e.Name(), ".neardup-tmp-"), "nothing committed: %s", e.Name())
	}
}

func TestKeepFieldRejectsTextInput(t *testing.T) {
	in := writeLines(t, filepath.Join(t.TempDir(), "t.txt"), "a b c", "a b c")
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.Keep = []string{in}, t.TempDir(), "field:score:max"
	_, err := Run(context.Background(), cfg, nil)
	assert.ErrorContains(t, err, "--keep field:score:max")
}

func TestKeepFieldParquet(t *testing.T) {
	in := parquettest.Write(t, filepath.Join(t.TempDir(), "seed.parquet"), seedRows(), 3)

	for _, tc := range []struct{ keep, kept, removed string }{
		{"field:quality:max", "D1", "D4"},
		{"field:quality:min", "D4", "D1"},
		{"field:tokens:max", "D1", "D4"},  // a tie: the smallest id
		{"field:comment:max", "D4", "D1"}, // D1's comment is null: it loses
		{"field:meta:max", "D1", "D4"},    // a struct counts as missing for both
	} {
		t.Run(tc.keep, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Inputs, cfg.Output, cfg.Keep = []string{in}, t.TempDir(), Keep(tc.keep)
			cfg.Shingle.N, cfg.Threshold = 2, 0.8
			_, err := Run(context.Background(), cfg, nil)
			require.NoError(t, err)
			kept, err := parquet.ReadFile[seedRow](filepath.Join(cfg.Output, "kept.parquet"))
			require.NoError(t, err)
			var ids []string
			for _, r := range kept {
				ids = append(ids, r.ID)
			}
			assert.Contains(t, ids, tc.kept)
			assert.NotContains(t, ids, tc.removed)
			b, err := os.ReadFile(filepath.Join(cfg.Output, "removed.jsonl"))
			require.NoError(t, err)
			removed := parseRemoved(t, string(b))
			require.Len(t, removed, 1)
			assert.Equal(t, tc.kept, removed[tc.removed].Cluster)
			c, err := os.ReadFile(filepath.Join(cfg.Output, clustersFile))
			require.NoError(t, err)
			assert.Equal(t, map[string]string{"D1": tc.kept}, keptOf(t, string(c)))
		})
	}
}

// The --keep field example of docs/method.md: the most-starred copy is kept.
func TestKeepFieldDocsExample(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Inputs = []string{filepath.Join(repotest.Root(t), "testdata", "keep-field.jsonl")}
	cfg.Output, cfg.Keep = t.TempDir(), "field:stars:max"
	out, _ := dedup(t, cfg)
	assert.Equal(t, map[string]string{"repo-a": "repo-b"}, keptOf(t, out[clustersFile]))
	removed := parseRemoved(t, out["removed.jsonl"])
	assert.ElementsMatch(t, []string{"repo-a", "repo-c"}, []string{removed["repo-a"].ID, removed["repo-c"].ID})
}
