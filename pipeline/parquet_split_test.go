package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/report"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/io/parquetfile/parquettest"
)

// splitCorpus writes 48 rows in row groups of 2: 16 texts, each also in capitals (an
// exact duplicate after lower-casing) and with one word more (a near duplicate).
func splitCorpus(t *testing.T, dir string) string {
	t.Helper()
	var rows []seedRow
	for i := range 48 {
		base := fmt.Sprintf("document %d says %s and then stops", i/3, strings.Repeat(fmt.Sprintf("w%d ", i/3), 12))
		switch i % 3 {
		case 1:
			base = strings.ToUpper(base)
		case 2:
			base += " extra"
		}
		rows = append(rows, seedRow{ID: fmt.Sprintf("r%02d", i), Text: base, Tokens: int64(i), Langs: []string{}})
	}
	return parquettest.Write(t, filepath.Join(dir, "corpus.parquet"), rows, 2)
}

// runParquet runs dedup on in, read in ranges of chunk bytes (0: the default, whole for
// this small file), and returns the outputs that must not depend on how it was read.
func runParquet(t *testing.T, in string, chunk int64, onDamage OnDamaged) (map[string]string, *Stats) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{in}, t.TempDir()
	cfg.Shingle.N = 2
	cfg.InputChunkBytes = chunk
	cfg.OnDamagedFile = onDamage
	st, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	out := map[string]string{}
	for _, name := range []string{"kept.parquet", "removed.jsonl", "rejected.jsonl", clustersFile, report.SimilaritiesFile} {
		b, err := os.ReadFile(filepath.Join(cfg.Output, name))
		require.NoError(t, err)
		out[name] = string(b)
	}
	return out, st
}

// A Parquet corpus read one row group per range dedups to byte-identical outputs, with
// the same counts, as the same file read whole; the row numbers are those of the file.
func TestParquetSplitDedupEqualsWhole(t *testing.T) {
	in := splitCorpus(t, t.TempDir())
	whole, wst := runParquet(t, in, 0, DamagedFail)
	split, sst := runParquet(t, in, 1, DamagedFail)
	assert.Equal(t, whole, split)
	assert.Equal(t, int64(1), wst.Counts["input_ranges"])
	assert.Equal(t, int64(24), sst.Counts["input_ranges"])
	for _, c := range []string{"documents_read", "records_rejected", "kept", "removed"} {
		assert.Equal(t, wst.Counts[c], sst.Counts[c], c)
	}
	assert.Equal(t, int64(48), sst.Counts["documents_read"])
	assert.Equal(t, int64(16), sst.Counts["kept"])
	assert.Contains(t, split["removed.jsonl"], `"line":47`)
}

// A damaged row group in a split Parquet file: under skip, the outputs of a whole read
// (the rows before it, one rejection, the file listed once); under fail, no run.
func TestParquetSplitDedupDamagedRowGroup(t *testing.T) {
	in := splitCorpus(t, t.TempDir())
	parquettest.CorruptRowGroup(t, in, 10) // rows 21 and 22
	whole, wst := runParquet(t, in, 0, DamagedSkip)
	split, sst := runParquet(t, in, 1, DamagedSkip)
	assert.Equal(t, whole, split)
	assert.Equal(t, wst.DamagedFiles, sst.DamagedFiles)
	require.Len(t, sst.DamagedFiles, 1)
	assert.Equal(t, int64(20), sst.DamagedFiles[0].LastGoodLine)
	assert.Equal(t, int64(1), sst.Counts["damaged_files"])
	assert.Equal(t, int64(20), sst.Counts["documents_read"])
	assert.Equal(t, int64(1), sst.Counts["records_rejected"])

	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{in}, t.TempDir()
	cfg.InputChunkBytes = 1
	_, err := Run(context.Background(), cfg, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "input "+in+" is damaged")
}
