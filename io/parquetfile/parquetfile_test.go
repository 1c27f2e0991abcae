package parquetfile

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/io/parquetfile/parquettest"
)

type meta struct {
	Lang  string  `parquet:"lang"`
	Score float32 `parquet:"score"`
}

// article is a Hugging Face–like row: the id and text among columns of other types.
type article struct {
	Views int64    `parquet:"views"`
	ID    int64    `parquet:"id"`
	Text  *string  `parquet:"text,optional,dict"`
	Score float64  `parquet:"score"`
	Tags  []string `parquet:"tags,list"`
	Meta  *meta    `parquet:"meta,optional"`
}

func sp(s string) *string { return &s }

var articles = []article{
	{Views: 10, ID: 101, Text: sp("first doc"), Score: 0.5, Tags: []string{"a", "b"}, Meta: &meta{Lang: "en", Score: 1.5}},
	{Views: 20, ID: 102, Text: nil, Score: 1.25, Tags: []string{}},
	{Views: 30, ID: 103, Text: sp("third"), Score: -2, Tags: []string{"c"}, Meta: &meta{Lang: "fr"}},
	{Views: 40, ID: 104, Text: sp(""), Score: 0, Tags: []string{}},
	{Views: 50, ID: 105, Text: sp("fifth \xff doc"), Score: 3, Tags: []string{"d", "e", "f"}, Meta: &meta{Lang: "de", Score: -1}},
}

// writeParquet writes rows to dir/name in row groups of rowsPerGroup, zstd-compressed,
// with a footer key/value pair, and returns the path.
func writeParquet[T any](t *testing.T, dir, name string, rows []T, rowsPerGroup int64) string {
	t.Helper()
	return parquettest.Write(t, filepath.Join(dir, name), rows, rowsPerGroup,
		parquet.Compression(&zstd.Codec{}), parquet.KeyValueMetadata("huggingface", `{"info": 1}`))
}

func readAll[T any](t *testing.T, path string) []T {
	t.Helper()
	rows, err := parquet.ReadFile[T](path)
	require.NoError(t, err)
	return rows
}

func open(t *testing.T, path string) *File {
	t.Helper()
	f, err := Open(context.Background(), path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

type docRow struct {
	Row      int64
	ID, Text string
	Null     bool
}

func readDocs(t *testing.T, f *File, cols Columns) ([]docRow, error) {
	var got []docRow
	err := f.ReadDocs(cols, func(row int64, id string, text []byte, null bool) {
		got = append(got, docRow{row, id, string(text), null})
	})
	return got, err
}

func TestReadDocsAcrossRowGroups(t *testing.T) {
	path := writeParquet(t, t.TempDir(), "a.parquet", articles, 2)
	f := open(t, path)
	require.Len(t, f.pf.RowGroups(), 3, "the test needs several row groups")
	cols, err := FindColumns(f.Schema(), "id", "text")
	require.NoError(t, err)
	assert.Equal(t, Columns{Text: 2, ID: 1}, cols, "leaf indexes: views, id, text, …")

	got, err := readDocs(t, f, cols)
	require.NoError(t, err)
	assert.Equal(t, []docRow{
		{1, "101", "first doc", false},
		{2, "102", "", true},
		{3, "103", "third", false},
		{4, "104", "", false},
		{5, "105", "fifth \xff doc", false},
	}, got)
}

func TestReadDocsIDs(t *testing.T) {
	type row struct {
		ID   *uint64 `parquet:"id,optional"`
		Text string  `parquet:"text"`
	}
	big := uint64(1<<63 + 5)
	path := writeParquet(t, t.TempDir(), "u.parquet", []row{{&big, "x"}, {nil, "y"}}, 10)
	f := open(t, path)
	cols, err := FindColumns(f.Schema(), "id", "text")
	require.NoError(t, err)
	got, err := readDocs(t, f, cols)
	require.NoError(t, err)
	assert.Equal(t, []docRow{{1, "9223372036854775813", "x", false}, {2, "", "y", false}}, got,
		"unsigned ids print unsigned; a null id is empty")

	cols, err = FindColumns(f.Schema(), "no_such_id", "text")
	require.NoError(t, err)
	assert.Equal(t, -1, cols.ID)
	got, err = readDocs(t, f, cols)
	require.NoError(t, err)
	assert.Equal(t, "", got[0].ID)
}

func TestFindColumnsRejectsUnusableColumns(t *testing.T) {
	type row struct {
		Text   string            `parquet:"text"`
		N      int64             `parquet:"n"`
		F      float64           `parquet:"f"`
		Tags   []string          `parquet:"tags,list"`
		Raw    []string          `parquet:"raw"`
		Meta   meta              `parquet:"meta"`
		Day    int32             `parquet:"day,date"`
		Bin    []byte            `parquet:"bin"`
		Labels map[string]string `parquet:"labels"`
	}
	schema := parquet.SchemaOf(row{})
	for _, c := range []struct{ id, text, want string }{
		{"id", "body", `field "body": no such top-level column (the file has columns "text", "n", "f", "tags", "raw", "meta", "day", "bin", … 1 more)`},
		{"id", "n", `field "n": column type INT64 is not a string (BYTE_ARRAY)`},
		{"id", "tags", `field "tags": column is a group (LIST), not a single value per row`},
		{"id", "raw", `field "raw": column is repeated, not a single value per row`},
		{"id", "meta", `field "meta": column is a group (group), not a single value per row`},
		{"f", "text", `field "f": column type DOUBLE is not a string or an integer`},
		{"day", "text", `field "day": column type DATE is not a string or an integer`},
	} {
		_, err := FindColumns(schema, c.id, c.text)
		require.Error(t, err, "%s/%s", c.id, c.text)
		assert.Equal(t, c.want, err.Error())
	}
	cols, err := FindColumns(schema, "n", "bin")
	require.NoError(t, err, "unannotated binary text, integer id")
	assert.Equal(t, Columns{Text: 8, ID: 1}, cols)
}

func TestWriterKeepsSchemaMetadataAndRows(t *testing.T) {
	dir := t.TempDir()
	in := open(t, writeParquet(t, dir, "a.parquet", articles, 2))
	var out bytes.Buffer
	w := NewWriter(&out, in)
	var seen []int64
	groups := 0
	require.NoError(t, in.ForEachRow(func(n int64, row parquet.Row) error {
		seen = append(seen, n)
		if n%2 == 1 {
			return w.Write(row)
		}
		return nil
	}, func() error { groups++; return w.EndRowGroup() }))
	require.NoError(t, w.Close())
	assert.Equal(t, []int64{1, 2, 3, 4, 5}, seen)
	assert.Equal(t, 3, groups)

	got, err := parquet.Read[article](bytes.NewReader(out.Bytes()), int64(out.Len()))
	require.NoError(t, err)
	assert.Equal(t, []article{articles[0], articles[2], articles[4]}, got)

	of, err := parquet.OpenFile(bytes.NewReader(out.Bytes()), int64(out.Len()))
	require.NoError(t, err)
	assert.True(t, parquet.EqualNodes(in.Schema(), of.Schema()), "same schema:\n%s\n%s", in.Schema(), of.Schema())
	assert.Equal(t, in.Schema().String(), of.Schema().String())
	assert.Contains(t, of.Metadata().KeyValueMetadata, format.KeyValue{Key: "huggingface", Value: `{"info": 1}`})
	require.Len(t, of.Metadata().RowGroups, 3, "one output row group per input row group with kept rows")
	for _, c := range of.Metadata().RowGroups[0].Columns {
		assert.Equal(t, format.Zstd, c.MetaData.Codec, "the input's compression is kept")
	}
	text := of.Metadata().RowGroups[0].Columns[2].MetaData
	assert.Contains(t, text.Encoding, format.RLEDictionary, "the input's dictionary encoding is kept")
}

func TestMerger(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := writeParquet(t, dir, "a.parquet", articles[:3], 2)
	b := writeParquet(t, dir, "b.parquet", articles[3:], 1)
	var out bytes.Buffer
	m := NewMerger(&out)
	require.NoError(t, m.Append(ctx, a, "in/a"))
	require.NoError(t, m.Append(ctx, b, "in/b"))
	require.NoError(t, m.Close())
	got, err := parquet.Read[article](bytes.NewReader(out.Bytes()), int64(out.Len()))
	require.NoError(t, err)
	assert.Equal(t, articles, got)

	type other struct {
		ID   int64  `parquet:"id"`
		Text string `parquet:"text"`
	}
	c := writeParquet(t, dir, "c.parquet", []other{{1, "x"}}, 10)
	m = NewMerger(&bytes.Buffer{})
	require.NoError(t, m.Append(ctx, a, "in/a"))
	err = m.Append(ctx, c, "in/c")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "in/a and in/c have different Parquet schemas")

	out.Reset()
	require.NoError(t, NewMerger(&out).Close())
	f, err := parquet.OpenFile(bytes.NewReader(out.Bytes()), int64(out.Len()))
	require.NoError(t, err, "nothing merged is still a Parquet file")
	assert.Equal(t, int64(0), f.NumRows())
}

func TestCheckSchemas(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := writeParquet(t, dir, "a.parquet", articles[:1], 10)
	b := writeParquet(t, dir, "b.parquet", articles[1:], 10)
	type noText struct {
		ID int64 `parquet:"id"`
	}
	type other struct {
		Text string `parquet:"text"`
	}
	n := writeParquet(t, dir, "n.parquet", []noText{{1}}, 10)
	o := writeParquet(t, dir, "o.parquet", []other{{"x"}}, 10)
	bad := filepath.Join(dir, "bad.parquet")
	require.NoError(t, os.WriteFile(bad, []byte("not parquet"), 0o644))

	assert.NoError(t, CheckSchemas(ctx, []string{a, b, bad}, "id", "text"),
		"a file that cannot be opened is left to the reader, which reports it damaged")
	err := CheckSchemas(ctx, []string{a, b, n}, "id", "text")
	require.Error(t, err)
	assert.Equal(t, n+`: field "text": no such top-level column (the file has columns "id")`, err.Error())
	err = CheckSchemas(ctx, []string{a, b, o}, "id", "text")
	require.Error(t, err)
	assert.Contains(t, err.Error(), a+" and "+o+" have different Parquet schemas")
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	path := writeParquet(t, dir, "a.parquet", articles, 2)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)

	// A .gz-wrapped file is read through a local copy, deleted at Close.
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, err = zw.Write(raw)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	gz := filepath.Join(dir, "a.parquet.gz")
	require.NoError(t, os.WriteFile(gz, z.Bytes(), 0o644))
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	f, err := Open(context.Background(), gz)
	require.NoError(t, err)
	assert.Equal(t, int64(5), f.NumRows())
	copies, _ := os.ReadDir(tmp)
	assert.Len(t, copies, 1)
	require.NoError(t, f.Close())
	copies, _ = os.ReadDir(tmp)
	assert.Empty(t, copies, "the local copy is removed")

	bad := filepath.Join(dir, "bad.parquet")
	require.NoError(t, os.WriteFile(bad, []byte("PAR1 but not really"), 0o644))
	_, err = Open(context.Background(), bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "open "+bad+": not a readable Parquet file")

	_, err = Open(context.Background(), filepath.Join(dir, "gone.parquet"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "gone.parquet")
}

func TestReadErrorsNameTheRow(t *testing.T) {
	path := writeParquet(t, t.TempDir(), "a.parquet", articles, 2)
	parquettest.CorruptRowGroup(t, path, 1) // rows 3 and 4
	f := open(t, path)
	cols, err := FindColumns(f.Schema(), "id", "text")
	require.NoError(t, err)
	got, err := readDocs(t, f, cols)
	var rerr *RowError
	require.ErrorAs(t, err, &rerr)
	assert.Equal(t, int64(3), rerr.Row)
	assert.Len(t, got, 2, "the rows before the broken row group are delivered")

	var rows []int64
	err = f.ForEachRow(func(n int64, _ parquet.Row) error { rows = append(rows, n); return nil }, nil)
	require.ErrorAs(t, err, &rerr)
	assert.Equal(t, int64(3), rerr.Row)
	assert.Equal(t, []int64{1, 2}, rows)
}
