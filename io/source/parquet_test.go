package source

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/tally/tallytest"
	"github.com/neardup/neardup/io/parquetfile/parquettest"
	"github.com/neardup/neardup/record"
)

// hfRow looks like a Hugging Face dataset row: the text among columns of other types.
type hfRow struct {
	URL   string   `parquet:"url"`
	Text  *string  `parquet:"text,optional"`
	ID    *int64   `parquet:"id,optional"`
	Score float64  `parquet:"score"`
	Tags  []string `parquet:"tags,list"`
}

func str(s string) *string { return &s }
func num(n int64) *int64   { return &n }

func writeParquet[T any](t *testing.T, dir, name string, rows []T, rowsPerGroup int64) string {
	t.Helper()
	return parquettest.Write(t, filepath.Join(dir, name), rows, rowsPerGroup)
}

func TestReadFileParquet(t *testing.T) {
	dir := t.TempDir()
	f := writeParquet(t, dir, "train.parquet", []hfRow{
		{URL: "u1", Text: str("first"), ID: num(7)},
		{URL: "u2", Text: nil, ID: num(8), Tags: []string{"x"}}, // null text
		{URL: "u3", Text: str("no id"), ID: nil},                // null id: generated
		{URL: "u4", Text: str("bad \xff utf8"), ID: num(-3)},
		{URL: "u5", Text: str(""), ID: num(9)}, // empty text is a (empty) document
	}, 2)
	docs, rej, st := readFile(t, f, Config{})
	assert.Equal(t, []record.Doc{
		{ID: "7", File: f, Line: 1, Text: "first"},
		{ID: f + ":3", File: f, Line: 3, Text: "no id"},
		{ID: "-3", File: f, Line: 4, Text: "bad \uFFFD utf8"},
		{ID: "9", File: f, Line: 5, Text: ""},
	}, docs)
	assert.Equal(t, []record.Rejected{{File: f, Line: 2, Reason: `field "text": null`}}, rej)
	assert.Equal(t, Stats{Docs: 4, Rejected: 1, InvalidUTF8: 1}, st)

	docs, rej, _ = readFile(t, f, Config{IDField: "url"})
	require.Len(t, docs, 4)
	assert.Equal(t, "u1", docs[0].ID, "--id-field picks the column")
	assert.Len(t, rej, 1)
}

// A file the driver could not check (remote, compressed) with no usable column has each
// of its rows rejected with the reason: every row is counted.
func TestReadFileParquetUnusableColumnsRejectEveryRow(t *testing.T) {
	dir := t.TempDir()
	f := writeParquet(t, dir, "a.parquet", []hfRow{{URL: "u", Text: str("x")}, {URL: "v", Text: str("y")}}, 1)

	docs, rej, st := readFile(t, f, Config{TextField: "body"})
	assert.Empty(t, docs)
	reason := `field "body": no such top-level column (the file has columns "url", "text", "id", "score", "tags")`
	assert.Equal(t, []record.Rejected{{File: f, Line: 1, Reason: reason}, {File: f, Line: 2, Reason: reason}}, rej)
	assert.Equal(t, Stats{Rejected: 2}, st)

	_, rej, _ = readFile(t, f, Config{TextField: "score"})
	require.Len(t, rej, 2)
	assert.Equal(t, `field "score": column type DOUBLE is not a string (BYTE_ARRAY)`, rej[0].Reason)

	_, rej, _ = readFile(t, f, Config{IDField: "tags"})
	require.Len(t, rej, 2)
	assert.Equal(t, int64(2), rej[1].Line)
	assert.Contains(t, rej[0].Reason, `field "tags": column is a group (LIST)`)

	junk := write(t, dir, "junk.parquet", []byte("{\"id\": 1}\n"))
	_, rej, _ = readFile(t, junk, Config{})
	require.Len(t, rej, 1)
	assert.Equal(t, int64(0), rej[0].Line)
	assert.Contains(t, rej[0].Reason, OpenErrorPrefix+"open "+junk+": not a readable Parquet file")
}

// Files refuses, before any work, a Parquet file whose text or id column is missing or of
// the wrong type, naming the file, the column and its type, even beside good files.
func TestFilesParquetRefusesUnusableColumns(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := writeParquet(t, dir, "a.parquet", []hfRow{{URL: "u", Text: str("x")}}, 10)
	type intText struct {
		Text int64 `parquet:"text"`
	}
	type structText struct {
		Text struct {
			A string `parquet:"a"`
		} `parquet:"text"`
	}
	type listText struct {
		Text []string `parquet:"text,list"`
	}
	type floatID struct {
		ID   float64 `parquet:"id"`
		Text string  `parquet:"text"`
	}
	for name, tc := range map[string]struct {
		path, want string
		cfg        Config
	}{
		"int":     {writeParquet(t, dir, "int.parquet", []intText{{1}}, 10), `field "text": column type INT64 is not a string (BYTE_ARRAY)`, Config{}},
		"struct":  {writeParquet(t, dir, "struct.parquet", []structText{{}}, 10), `field "text": column is a group (group), not a single value per row`, Config{}},
		"list":    {writeParquet(t, dir, "list.parquet", []listText{{}}, 10), `field "text": column is a group (LIST), not a single value per row`, Config{}},
		"missing": {good, `field "body": no such top-level column`, Config{TextField: "body"}},
		"id":      {writeParquet(t, dir, "fid.parquet", []floatID{{1, "x"}}, 10), `field "id": column type DOUBLE is not a string or an integer`, Config{}},
	} {
		cfg := tc.cfg
		cfg.Patterns = []string{good, tc.path}
		_, err := Files(ctx, cfg)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), tc.path+": "+tc.want, name)
	}
}

func TestFilesParquet(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := writeParquet(t, dir, "a.parquet", []hfRow{{URL: "u", Text: str("x")}}, 10)
	b := writeParquet(t, dir, "b.parquet", []hfRow{{URL: "v", Text: str("y")}}, 10)
	got, err := Files(ctx, Config{Patterns: []string{filepath.Join(dir, "*.parquet")}})
	require.NoError(t, err)
	assert.Equal(t, []string{a, b}, got)
	format, err := OutputFormat(got, FormatAuto)
	require.NoError(t, err)
	assert.Equal(t, FormatParquet, format)

	j := write(t, dir, "c.jsonl", []byte("{\"text\": \"z\"}\n"))
	_, err = Files(ctx, Config{Patterns: []string{a, j}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mix")

	type other struct {
		Text string `parquet:"text"`
		N    int32  `parquet:"n"`
	}
	o := writeParquet(t, dir, "o.parquet", []other{{"z", 1}}, 10)
	_, err = Files(ctx, Config{Patterns: []string{a, o}})
	require.Error(t, err, "kept rows of different schemas cannot share kept.parquet")
	assert.Contains(t, err.Error(), "different Parquet schemas")
}

func TestReadPipelineParquet(t *testing.T) {
	dir := t.TempDir()
	a := writeParquet(t, dir, "a.parquet", []hfRow{
		{URL: "u1", Text: str("red blue green"), ID: num(1)},
		{URL: "u2", Text: nil, ID: num(2)},
		{URL: "u3", Text: str("black white"), ID: num(3)},
	}, 2)
	gone := filepath.Join(dir, "gone.parquet")
	_, err := os.Stat(gone)
	require.True(t, os.IsNotExist(err))

	p, s := beam.NewPipelineWithRoot()
	docs, rej, counts := Read(s, []string{a, gone}, Config{Format: FormatParquet})
	passert.Equals(s, docs,
		record.Doc{ID: "1", File: a, Line: 1, Text: "red blue green"},
		record.Doc{ID: "3", File: a, Line: 3, Text: "black white"},
	)
	passert.Count(s, rej, "rejected", 2)
	counters := tallytest.Run(t, p, s, counts)
	assert.Equal(t, map[string]int64{"documents_read": 2, "records_rejected": 2, "invalid_utf8_replaced": 0,
		"input_ranges": 2, "damaged_files": 1}, counters)
}
