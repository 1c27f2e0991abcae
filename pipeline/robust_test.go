package pipeline

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBrokenInputsLoseNothing runs every kind of broken input through one job: each
// record is kept, removed or rejected with its place and reason, and the counts add up.
func TestBrokenInputsLoseNothing(t *testing.T) {
	dir := t.TempDir()
	text := "the quick brown fox jumps over the lazy dog near the river bank"
	writeLines(t, filepath.Join(dir, "a-mixed.jsonl"),
		jsonDoc("ok", text),
		`{"id": "utf8", "text": "caf`+"\xff\xfe"+` au lait and more words here for shingles"}`,
		`{"id": "nul", "text": "a\u0000b c d e f g"}`,
		`{"id": "empty1", "text": ""}`,
		`{"id": "empty2", "text": "   "}`,
		`{"id": "bad", "text": `,
		`42`,
		`{"id": "notext"}`,
		`{"id": "numtext", "text": 7}`,
		"",
	)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b-empty.jsonl"), nil, 0o644))

	// A gzip stream cut short: the lines before the break are read, the break is rejected.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	for i := 0; i < 50; i++ {
		zw.Write([]byte(jsonDoc("gz"+string(rune('a'+i%26))+strings.Repeat("x", i/26), text+" copy") + "\n"))
	}
	require.NoError(t, zw.Close())
	cut := gz.Bytes()[:gz.Len()-20]
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c-cut.jsonl.gz"), cut, 0o644))

	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{filepath.Join(dir, "*")}, t.TempDir()
	cfg.OnDamagedFile = DamagedSkip // the cut gzip file would fail the run by default
	out, st := dedup(t, cfg)
	assert.Equal(t, int64(1), st.Counts["damaged_files"])

	c := st.Counts
	assert.Equal(t, int64(1), c["invalid_utf8_replaced"])
	assert.Equal(t, int64(2), c["empty_documents"], "empty and blank texts are documents with empty shingle sets")
	removed := parseRemoved(t, out["removed.jsonl"])
	assert.Equal(t, "empty1", removed["empty2"].Cluster, "two empty sets have Jaccard 1.0 (the seed's rule)")
	assert.Contains(t, out["kept.jsonl"], `"id": "nul"`)

	type rej struct {
		File   string `json:"file"`
		Line   int64  `json:"line"`
		Reason string `json:"reason"`
	}
	var rejected []rej
	for _, l := range strings.Split(strings.TrimSpace(out["rejected.jsonl"]), "\n") {
		var r rej
		require.NoError(t, json.Unmarshal([]byte(l), &r), l)
		rejected = append(rejected, r)
	}
	require.GreaterOrEqual(t, len(rejected), 6)
	reasons := map[int64]string{}
	for _, r := range rejected[:5] {
		assert.Equal(t, filepath.Join(dir, "a-mixed.jsonl"), r.File)
		reasons[r.Line] = r.Reason
	}
	assert.Contains(t, reasons[6], "invalid JSON")
	assert.Contains(t, reasons[7], "object")
	assert.Contains(t, reasons[8], `field "text"`)
	assert.Contains(t, reasons[9], `field "text"`)
	last := rejected[len(rejected)-1]
	assert.Equal(t, filepath.Join(dir, "c-cut.jsonl.gz"), last.File)
	assert.Contains(t, last.Reason, "c-cut.jsonl.gz", "the read error names the file")
	assert.Greater(t, last.Line, int64(0))

	// Every line of every file is accounted for: a-mixed.jsonl has 5 documents and 5
	// rejected lines (4 bad records and the blank last line); the gzip file gives its
	// readable lines and one rejection for the break.
	gzRead := last.Line - 1
	assert.Equal(t, 5+gzRead, c["documents_read"])
	assert.Equal(t, int64(5+1), c["records_rejected"])
	assert.Equal(t, "empty line", reasons[10])
}

// TestHugeDocumentIsWholeNotFatal runs a 50 MB single document: it is shingled and
// signed whole (counted as capped, above --max-shingles), and the record is kept byte
// for byte.
func TestHugeDocumentIsWholeNotFatal(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB document")
	}
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; b.Len() < 50<<20; i++ {
		b.WriteString("w")
		b.WriteString(strconv.Itoa(i))
		b.WriteString(" ")
	}
	in := writeLines(t, filepath.Join(dir, "huge.jsonl"), jsonDoc("huge", b.String()), jsonDoc("small", "a small document of several words here"))
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{in}, t.TempDir()
	out, st := dedup(t, cfg)
	assert.Equal(t, int64(1), st.Counts["capped_documents"])
	assert.Greater(t, st.Counts["shingles"], int64(50*cfg.MaxShingles), "the whole set is shingled")
	raw, err := os.ReadFile(in)
	require.NoError(t, err)
	assert.Equal(t, string(raw), out["kept.jsonl"])
}
