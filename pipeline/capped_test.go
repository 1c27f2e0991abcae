package pipeline

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLargeDocumentIsVerifiedOnItsWholeSet runs the default flags on a document of
// 150,000 distinct words and its 90% prefix, both above the default --max-shingles: the
// pair is found and reported at its exact Jaccard, 0.9, not at the Jaccard of two
// bottom-k samples (about 0.82), in removed.jsonl and in report.html.
func TestLargeDocumentIsVerifiedOnItsWholeSet(t *testing.T) {
	dir := t.TempDir()
	in := writeLines(t, filepath.Join(dir, "large.jsonl"),
		jsonDoc("whole", words(0, 150_000)), jsonDoc("prefix", words(0, 135_000)))
	cfg := DefaultConfig()
	require.Less(t, cfg.MaxShingles, 135_000, "both documents must be above the default cap")
	cfg.Inputs, cfg.Output = []string{in}, t.TempDir()
	cfg.Shingle.N = 1
	out, st := dedup(t, cfg)

	removed := parseRemoved(t, out["removed.jsonl"])
	require.Contains(t, removed, "whole", "the pair is found")
	assert.InDelta(t, 135_000.0/150_000, removed["whole"].Similarity, 1e-12)
	assert.Equal(t, int64(2), st.Counts["capped_documents"])
	assert.Contains(t, out["report.html"], `class="sim">0.9000</b>`, "report.html shows the exact Jaccard too")
}
