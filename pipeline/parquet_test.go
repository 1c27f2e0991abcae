package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/io/parquetfile/parquettest"
	"github.com/neardup/neardup/report"
)

type seedMeta struct {
	Source string `parquet:"source"`
	Year   int32  `parquet:"year"`
}

// seedRow is the seed corpus as a Hugging Face–style Parquet table: the id and text among
// columns of other types.
type seedRow struct {
	ID      string    `parquet:"id"`
	Text    string    `parquet:"text"`
	Tokens  int64     `parquet:"tokens"`
	Quality float64   `parquet:"quality"`
	Langs   []string  `parquet:"langs,list"`
	Meta    *seedMeta `parquet:"meta,optional"`
	Comment *string   `parquet:"comment,optional"`
}

// seedRows are the seed corpus's four documents as rows: D4 is D1 in capitals and D2 is
// D1 with one word more.
func seedRows() []seedRow {
	note := "all caps"
	return []seedRow{
		{ID: "D1", Text: "red blue green", Tokens: 3, Quality: 0.9, Langs: []string{"en"}, Meta: &seedMeta{Source: "a", Year: 2020}},
		{ID: "D2", Text: "red blue green yellow", Tokens: 4, Quality: 0.75, Langs: []string{"en", "fr"}},
		{ID: "D3", Text: "black white", Tokens: 2, Quality: 0.5, Langs: []string{}, Meta: &seedMeta{Source: "b"}},
		{ID: "D4", Text: "RED BLUE GREEN", Tokens: 3, Quality: 0.25, Langs: []string{"en"}, Comment: &note},
	}
}

func TestSeedCorpusParquet(t *testing.T) {
	seed := seedRows()
	in := parquettest.Write(t, filepath.Join(t.TempDir(), "seed.parquet"), seed, 3)

	cfg := DefaultConfig()
	cfg.Inputs = []string{in}
	cfg.Output = t.TempDir()
	cfg.Shingle.N = 2
	cfg.Threshold = 0.8
	st, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)

	entries, err := os.ReadDir(cfg.Output)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"kept.parquet", "removed.jsonl", "rejected.jsonl", clustersFile, report.SimilaritiesFile, report.HTMLFile, statsFile}, names)

	kept, err := parquet.ReadFile[seedRow](filepath.Join(cfg.Output, "kept.parquet"))
	require.NoError(t, err)
	assert.Equal(t, seed[:3], kept, "D1, D2, D3 kept with every column")

	out, err := os.ReadFile(filepath.Join(cfg.Output, "removed.jsonl"))
	require.NoError(t, err)
	removed := parseRemoved(t, string(out))
	require.Len(t, removed, 1)
	d4 := removed["D4"]
	assert.Equal(t, "D1", d4.Cluster)
	assert.Equal(t, 1.0, d4.Similarity)
	assert.Equal(t, in, d4.File)
	assert.Equal(t, int64(4), d4.Line, "the row number")
	assert.JSONEq(t, `{"id":"D4","text":"RED BLUE GREEN","tokens":3,"quality":0.25,"langs":["en"],"meta":null,"comment":"all caps"}`,
		string(d4.Record))

	rejected, err := os.ReadFile(filepath.Join(cfg.Output, "rejected.jsonl"))
	require.NoError(t, err)
	assert.Empty(t, rejected)
	assert.Equal(t, int64(4), st.Counts["documents_read"])
	assert.Equal(t, int64(3), st.Counts["kept"])
	assert.Equal(t, int64(1), st.Counts["removed"])
}

// A Parquet input without rows gives a kept.parquet (and sharded parts) with the input's
// columns, not a file without any.
func TestEmptyParquetInputKeepsItsSchema(t *testing.T) {
	in := parquettest.Write(t, filepath.Join(t.TempDir(), "empty.parquet"), []seedRow{}, 3)
	want := parquet.SchemaOf(seedRow{})
	for _, sharded := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Inputs, cfg.Output = []string{in}, t.TempDir()
		kept := filepath.Join(cfg.Output, "kept.parquet")
		if sharded {
			cfg.Layout = "sharded"
			kept = filepath.Join(cfg.Output, "kept", "part-00000-of-00001.parquet")
		}
		st, err := Run(context.Background(), cfg, nil)
		require.NoError(t, err)
		assert.Equal(t, int64(0), st.Counts["documents_read"])
		f, err := os.Open(kept)
		require.NoError(t, err)
		info, err := f.Stat()
		require.NoError(t, err)
		pf, err := parquet.OpenFile(f, info.Size())
		require.NoError(t, err)
		f.Close()
		assert.Equal(t, int64(0), pf.NumRows())
		assert.True(t, parquet.EqualNodes(want, pf.Schema()), "sharded %v: kept has the input's schema, got\n%s", sharded, pf.Schema())
	}
}

// A Parquet input whose text column is not a string is refused before the pipeline
// (exit 2), naming the file, the column and its type, even beside a good file: none of
// its rows could be read.
func TestParquetInputWithoutTextColumnIsRefused(t *testing.T) {
	dir := t.TempDir()
	good := parquettest.Write(t, filepath.Join(dir, "a.parquet"), seedRows(), 3)
	type intText struct {
		ID   string `parquet:"id"`
		Text int64  `parquet:"text"`
	}
	bad := parquettest.Write(t, filepath.Join(dir, "b.parquet"), []intText{{"x", 1}, {"y", 2}}, 3)
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{good, bad}, t.TempDir()
	_, err := Run(context.Background(), cfg, nil)
	require.Error(t, err)
	var u UsageError
	assert.True(t, errors.As(err, &u), "%v", err)
	assert.Equal(t, "--input: "+bad+`: field "text": column type INT64 is not a string (BYTE_ARRAY)`, err.Error())
	entries, _ := os.ReadDir(cfg.Output)
	assert.Empty(t, entries)
}
