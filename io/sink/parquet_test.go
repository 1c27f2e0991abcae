package sink

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/record"
)

type hfMeta struct {
	Lang  string  `parquet:"lang"`
	Score float32 `parquet:"score"`
}

// hfRow looks like a Hugging Face dataset row: id and text among columns of other types,
// nested and nullable ones included.
type hfRow struct {
	ID    string   `parquet:"id"`
	Text  *string  `parquet:"text,optional,dict"`
	Views int64    `parquet:"views"`
	Score float64  `parquet:"score"`
	Tags  []string `parquet:"tags,list"`
	Meta  *hfMeta  `parquet:"meta,optional"`
	Note  *string  `parquet:"note,optional"`
}

func sp(s string) *string { return &s }

func writeParquetInput[T any](t *testing.T, dir, name string, rows []T, rowsPerGroup int64) string {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, parquet.MaxRowsPerRowGroup(rowsPerGroup),
		parquet.Compression(&snappy.Codec{}), parquet.KeyValueMetadata("huggingface", `{"info":{"features":{}}}`))
	_, err := w.Write(rows)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return writeInput(t, dir, name, buf.String())
}

func TestWritePipelineParquet(t *testing.T) {
	in := t.TempDir()
	aRows := []hfRow{
		{ID: "D1", Text: sp("red blue green"), Views: 1, Score: 0.5, Tags: []string{"x", "y"}, Meta: &hfMeta{Lang: "en", Score: 1.5}}, // 1 kept
		{ID: "D2", Text: sp("red blue green yellow"), Views: 2, Score: 1.25, Tags: []string{}, Note: sp("n")},                         // 2 kept
		{ID: "D3", Text: nil, Views: 3, Score: 2, Tags: []string{"z"}},                                                                // 3 rejected: null text
		{ID: "D4", Text: sp("RED BLUE GREEN"), Views: 4, Score: -1, Tags: []string{"x"}, Meta: &hfMeta{Lang: "de"}},                   // 4 removed
		{ID: "D5", Text: sp("bad \xff byte"), Views: 5, Score: 3.5, Tags: []string{}},                                                 // 5 kept
	}
	a := writeParquetInput(t, in, "a.parquet", aRows, 2)
	bRows := []hfRow{
		{ID: "B1", Text: sp("x"), Views: 6, Tags: []string{}}, // 1 kept
		{ID: "B2", Text: sp("x"), Views: 7, Tags: []string{}}, // 2 removed
	}
	b := writeParquetInput(t, in, "b.parquet", bRows, 10)
	type noText struct {
		ID   string `parquet:"id"`
		Body string `parquet:"body"`
	}
	c := writeParquetInput(t, in, "c.parquet", []noText{{"C1", "a"}, {"C2", "b"}}, 10)

	out := t.TempDir()
	removed := map[string]string{"D4": "D1", "B2": "B1"}
	r := runDedup(t, []string{a, b, c}, "auto", removed, out)

	// kept.parquet: the kept rows, whole, in file then row order, with the input's schema.
	keptPath := filepath.Join(out, KeptParquet)
	got, err := parquet.ReadFile[hfRow](keptPath)
	require.NoError(t, err)
	assert.Equal(t, []hfRow{aRows[0], aRows[1], aRows[4], bRows[0]}, got)
	kf, err := os.Open(keptPath)
	require.NoError(t, err)
	defer kf.Close()
	st, err := kf.Stat()
	require.NoError(t, err)
	pk, err := parquet.OpenFile(kf, st.Size())
	require.NoError(t, err)
	assert.True(t, parquet.EqualNodes(parquet.SchemaOf(hfRow{}), pk.Schema()), "schema:\n%s", pk.Schema())
	assert.Equal(t, parquet.SchemaOf(hfRow{}).String(), pk.Schema().String())
	assert.Contains(t, pk.Metadata().KeyValueMetadata, format.KeyValue{Key: "huggingface", Value: `{"info":{"features":{}}}`})
	for _, rg := range pk.Metadata().RowGroups {
		for _, col := range rg.Columns {
			assert.Equal(t, format.Snappy, col.MetaData.Codec)
		}
	}

	// removed.jsonl: the row as a JSON object of all its columns.
	assert.Equal(t, ""+
		`{"id":"D4","cluster":"D1","similarity":0.75,"file":"`+a+`","line":4,"record":`+
		`{"id":"D4","text":"RED BLUE GREEN","views":4,"score":-1.0,"tags":["x"],"meta":{"lang":"de","score":0.0},"note":null}}`+"\n"+
		`{"id":"B2","cluster":"B1","similarity":0.75,"file":"`+b+`","line":2,"record":`+
		`{"id":"B2","text":"x","views":7,"score":0.0,"tags":[],"meta":null,"note":null}}`+"\n",
		r.removed)

	// rejected.jsonl: the null-text row with its row number and columns, and each row of
	// the file without a text column (one the driver could not check) with its columns.
	type rejectedRow struct {
		File   string
		Line   int64
		Reason string
		Record *string
	}
	var rej []rejectedRow
	for _, l := range lines(r.rejected) {
		var row rejectedRow
		require.NoError(t, json.Unmarshal([]byte(l), &row), l)
		rej = append(rej, row)
	}
	assert.Equal(t, []rejectedRow{
		{File: a, Line: 3, Reason: `field "text": null`,
			Record: sp(`{"id":"D3","text":null,"views":3,"score":2.0,"tags":["z"],"meta":null,"note":null}`)},
		{File: c, Line: 1, Reason: `field "text": no such top-level column (the file has columns "id", "body")`, Record: sp(`{"id":"C1","body":"a"}`)},
		{File: c, Line: 2, Reason: `field "text": no such top-level column (the file has columns "id", "body")`, Record: sp(`{"id":"C2","body":"b"}`)},
	}, rej)

	// Every row is in exactly one output.
	assert.Equal(t, len(aRows)+len(bRows)+2, len(got)+len(lines(r.removed))+len(rej))
	assert.Equal(t, map[string]int64{
		"documents_read": 6, "records_rejected": 3, "invalid_utf8_replaced": 1, "input_ranges": 3,
		"output_kept": 4, "output_removed": 2, "output_rejected": 3, "kept": 4, "removed": 2,
	}, r.counters)

	// Run to run, the outputs are byte-identical.
	out2 := t.TempDir()
	r2 := runDedup(t, []string{a, b, c}, "auto", removed, out2)
	assert.Equal(t, r.removed, r2.removed)
	assert.Equal(t, r.rejected, r2.rejected)
	k1, err := os.ReadFile(keptPath)
	require.NoError(t, err)
	k2, err := os.ReadFile(filepath.Join(out2, KeptParquet))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(k1, k2), "kept.parquet is byte-identical run to run")
}

func TestWritePipelineParquetNothingKept(t *testing.T) {
	in := t.TempDir()
	a := writeParquetInput(t, in, "a.parquet", []hfRow{{ID: "A", Text: nil}}, 10)
	out := t.TempDir()
	r := runDedup(t, []string{a}, "auto", nil, out)
	got, err := parquet.ReadFile[hfRow](filepath.Join(out, KeptParquet))
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Len(t, lines(r.rejected), 1)
}

func TestWritePartParquetRefusesMismatchedOutcomes(t *testing.T) {
	ctx := context.Background()
	in := t.TempDir()
	f := writeParquetInput(t, in, "a.parquet", []hfRow{{ID: "1", Text: sp("a")}, {ID: "2", Text: sp("b")}, {ID: "3", Text: sp("c")}}, 2)
	for _, tc := range []struct {
		name string
		plan *plan
		want string
	}{
		{"lost row", planOf(t, kept(1), kept(3)), "row 2: no decision and no rejection"},
		{"two outcomes", planOf(t, kept(1), kept(2), removedAt(2, "2", "1", 0.9), kept(3)), "row 2: more than one outcome"},
		{"past the end", planOf(t, kept(1), kept(2), kept(3), kept(4)), "outcomes for rows after row 3"},
		{"whole-file rejection and rows", planOf(t, rejectedAt(0, "open error: x"), kept(1)), "rejected whole"},
	} {
		_, err := writePart(ctx, t.TempDir(), source.FormatParquet, "", "", f, tc.plan, 0)
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
}

func TestConcatParquetRefusesDifferentSchemas(t *testing.T) {
	ctx := context.Background()
	in := t.TempDir()
	tmp := t.TempDir()
	type other struct {
		ID   string `parquet:"id"`
		Text string `parquet:"text"`
	}
	a := writeParquetInput(t, in, "a.parquet", []hfRow{{ID: "1", Text: sp("a")}}, 10)
	b := writeParquetInput(t, in, "b.parquet", []other{{"2", "b"}}, 10)
	pa, err := writePart(ctx, tmp, source.FormatParquet, "", "", a, planOf(t, kept(1)), 0)
	require.NoError(t, err)
	pb, err := writePart(ctx, tmp, source.FormatParquet, "", "", b, planOf(t, kept(1)), 0)
	require.NoError(t, err)
	err = concat(ctx, tmp, source.FormatParquet, false, false, []part{pb, pa}, "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), a+" and "+b+" have different Parquet schemas")
}

// TestWritePartParquetReadError: when a row group cannot be read, the reader rejects its
// first row with a read error and stops; the re-read stops at the same row.
func TestWritePartParquetReadError(t *testing.T) {
	ctx := context.Background()
	in := t.TempDir()
	f := writeParquetInput(t, in, "a.parquet", []hfRow{
		{ID: "1", Text: sp("a")}, {ID: "2", Text: sp("b")}, {ID: "3", Text: sp("c")}, {ID: "4", Text: sp("d")},
	}, 2)
	// Break every column chunk of the second row group.
	raw, err := os.ReadFile(f)
	require.NoError(t, err)
	pf, err := parquet.OpenFile(bytes.NewReader(raw), int64(len(raw)))
	require.NoError(t, err)
	for _, col := range pf.Metadata().RowGroups[1].Columns {
		off := col.MetaData.DataPageOffset
		if col.MetaData.DictionaryPageOffset > 0 {
			off = col.MetaData.DictionaryPageOffset
		}
		copy(raw[off:off+8], bytes.Repeat([]byte{0xff}, 8))
	}
	require.NoError(t, os.WriteFile(f, raw, 0o644))

	var p plan
	source.ReadFile(ctx, f, source.Config{},
		func(d record.Doc) {
			require.NoError(t, p.add(fromDecision(record.Decision{File: d.File, Line: d.Line, ID: d.ID, Cluster: d.ID})))
		},
		func(r record.Rejected) { require.NoError(t, p.add(fromRejected(r))) })
	require.Len(t, p.rejected, 1)
	assert.Equal(t, int64(3), p.rejected[0].Line)

	tmp := t.TempDir()
	pt, err := writePart(ctx, tmp, source.FormatParquet, "", "", f, &p, 0)
	require.NoError(t, err)
	assert.Equal(t, int64(2), pt.NKept)
	assert.Equal(t, int64(1), pt.NRejected)
	require.NoError(t, concat(ctx, tmp, source.FormatParquet, false, false, []part{pt}, ""))
	got, err := parquet.ReadFile[hfRow](filepath.Join(tmp, KeptParquet))
	require.NoError(t, err)
	assert.Len(t, got, 2)
	var rej map[string]any
	require.NoError(t, json.Unmarshal([]byte(readOut(t, tmp, Rejected)), &rej))
	assert.Equal(t, float64(3), rej["line"])
	assert.NotContains(t, rej, "record", "an unreadable row has no record")
}
