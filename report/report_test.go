package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/pipeline"
	"github.com/neardup/neardup/report"
)

// The page is a function of the output directory: rebuilt twice, it is the same bytes,
// and equal to what dedup wrote.
func TestBuildIsDeterministic(t *testing.T) {
	dir := dedupGenerated(t, 1500)
	a, err := report.Build(context.Background(), dir, report.Options{Clusters: report.DefaultClusters})
	require.NoError(t, err)
	b, err := report.Build(context.Background(), dir, report.Options{Clusters: report.DefaultClusters})
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))
	written, err := os.ReadFile(filepath.Join(dir, report.HTMLFile))
	require.NoError(t, err)
	assert.Equal(t, string(a), strings.Replace(string(written), filepath.Join(dir), dir, 1))
	assert.Equal(t, report.DefaultClusters, strings.Count(string(a), `<section class="cluster"`))
	self := strings.ReplaceAll(string(a), `xmlns="http://www.w3.org/2000/svg"`, "") // a name, not a load
	for _, s := range []string{"http://", "https://", "<link", "src=", "url(", "@import"} {
		assert.NotContains(t, self, s, "a self-contained page loads nothing")
	}
}

// Past the size cap the pairs are listed without their texts, and the page says so.
func TestSizeCap(t *testing.T) {
	dir := dedupGenerated(t, 1500)
	full, err := report.Build(context.Background(), dir, report.Options{Clusters: 200})
	require.NoError(t, err)
	const limit = 320 << 10
	require.Greater(t, len(full), limit, "the uncapped page must be larger than the cap tested")
	capped, err := report.Build(context.Background(), dir, report.Options{Clusters: 200, MaxBytes: limit})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(capped), limit)
	assert.Contains(t, string(capped), "the report&#39;s size cap was reached")
	assert.NotContains(t, string(full), "size cap was reached")
}

func TestNoClusters(t *testing.T) {
	dir := dedupSeed(t)
	page, err := report.Build(context.Background(), dir, report.Options{Clusters: 0})
	require.NoError(t, err)
	assert.NotContains(t, string(page), `<section class="cluster"`)
	assert.Contains(t, string(page), `data-count="removed">1<`)
}

func TestNotAnOutputDirectory(t *testing.T) {
	_, err := report.Build(context.Background(), t.TempDir(), report.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stats.json")
}

// A kept line that is not JSON fails the page with the file and line, wherever it is in
// the file (the kept file is read in blocks, on several goroutines).
func TestInvalidKeptLine(t *testing.T) {
	dir := dedupGenerated(t, 1500)
	path := filepath.Join(dir, "kept.jsonl")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	require.Greater(t, len(b), 1<<20, "the kept file must span more than one block")
	for _, bad := range []int{1, len(lines) / 2, len(lines) - 2} {
		broken := append([]string(nil), lines...)
		broken[bad-1] = `{"id": "x", "text": ` + "\n"
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(broken, "")), 0o644))
		_, err := report.Build(context.Background(), dir, report.Options{Clusters: report.DefaultClusters})
		require.Error(t, err)
		assert.Contains(t, err.Error(), fmt.Sprintf("kept.jsonl:%d: invalid kept line", bad))
	}
}

// A corpus's ids are the user's: one of 2 MB, in a cluster the page samples, is cut on
// the page, and the page is written within its cap.
func TestLongIDIsCutOnThePage(t *testing.T) {
	long := strings.Repeat("x", 2<<20) + "-end"
	text := "the quick brown fox jumps over the lazy dog and keeps running far away from here"
	var b strings.Builder
	for _, r := range []struct{ id, text string }{
		{long, text},
		{"b-copy", text + " today"},
		{"a-first", "an entirely different document about something else that nobody copied at all"},
		{"c", "an entirely different document about something else that nobody copied at all yes"},
		{long + "2", "an entirely different document about something else that nobody copied at all"},
	} {
		line, err := json.Marshal(map[string]string{"id": r.id, "text": r.text})
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	in := filepath.Join(t.TempDir(), "long-ids.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(b.String()), 0o644))
	cfg := pipeline.DefaultConfig()
	cfg.Inputs = []string{in}
	dir := dedup(t, cfg)

	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.LessOrEqual(t, len(page), report.DefaultMaxBytes)
	assert.Less(t, len(page), 1<<20, "no id is shown whole")
	assert.Contains(t, string(page), "(an id of 2097156 bytes, cut)")
	assert.Contains(t, string(page), "(an id of 2097157 bytes, cut)")
	assert.Contains(t, string(page), "b-copy")
}
