package source

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReadBack(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	names := []string{"kept.jsonl", "removed.jsonl", "rejected.jsonl", "clusters.jsonl", "stats.json", "report.html"}
	for _, tc := range []struct {
		patterns []string
		out      string
		want     []string
	}{
		{[]string{"data/*.jsonl"}, "data", []string{"--input data/*.jsonl matches the outputs kept.jsonl, removed.jsonl, rejected.jsonl, clusters.jsonl in --output data"}},
		{[]string{filepath.Join(dir, "data", "*")}, "data", []string{"--input " + filepath.Join(dir, "data", "*") + " matches the outputs kept.jsonl, removed.jsonl, rejected.jsonl, clusters.jsonl, stats.json, report.html in --output data"}},
		{[]string{"data/*/*.jsonl"}, "./data/out/", []string{"--input data/*/*.jsonl matches the outputs kept.jsonl, removed.jsonl, rejected.jsonl, clusters.jsonl in --output ./data/out/"}},
		{[]string{"data/*.jsonl.gz", "other/*.jsonl"}, "data", nil},
		{[]string{"data/*.jsonl"}, "data/out", nil},
		{[]string{"data/part-*.jsonl"}, "data", nil},
		{[]string{"gs://b/in/*.jsonl"}, "gs://b/in", []string{"--input gs://b/in/*.jsonl matches the outputs kept.jsonl, removed.jsonl, rejected.jsonl, clusters.jsonl in --output gs://b/in"}},
		{[]string{"gs://b/in/*.jsonl"}, "gs://b/out", nil},
		{[]string{"gs://b/in/*.jsonl"}, "in", nil},
	} {
		got := ReadBack(tc.patterns, tc.out, names)
		assert.Len(t, got, len(tc.want), "%v into %s: %v", tc.patterns, tc.out, got)
		for i := range min(len(got), len(tc.want)) {
			assert.Contains(t, got[i], tc.want[i])
		}
	}
}
