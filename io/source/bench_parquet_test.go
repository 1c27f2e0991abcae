package source

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"

	"github.com/neardup/neardup/record"
)

// benchRow is shaped like a web-crawl dataset row (about 1.5 KB of text plus metadata).
type benchRow struct {
	ID    string  `parquet:"id"`
	URL   string  `parquet:"url"`
	Lang  string  `parquet:"lang,dict"`
	Score float64 `parquet:"score"`
	Text  string  `parquet:"text"`
}

// benchParquetFile writes 5000 benchRows in row groups of 1000, snappy-compressed.
func benchParquetFile(b *testing.B) string {
	text := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 25)
	rows := make([]benchRow, 5000)
	for i := range rows {
		rows[i] = benchRow{ID: fmt.Sprintf("doc-%d", i), URL: fmt.Sprintf("https://example.com/%d", i), Lang: "en", Score: 0.5, Text: text}
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[benchRow](&buf, parquet.MaxRowsPerRowGroup(1000), parquet.Compression(&snappy.Codec{}))
	if _, err := w.Write(rows); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "bench.parquet")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkReadFileParquet measures the Parquet reader: the id and text columns only,
// decompressed and turned into Docs. Reported in rows per second.
func BenchmarkReadFileParquet(b *testing.B) {
	path := benchParquetFile(b)
	for b.Loop() {
		st := ReadFile(context.Background(), path, Config{}, func(record.Doc) {}, func(r record.Rejected) { b.Fatal(r) })
		if st.Docs != 5000 {
			b.Fatal(st)
		}
	}
	b.ReportMetric(float64(b.N)*5000/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkReadParquetSplit reads the same file as BenchmarkReadFileParquet split into
// one range per row group (5), with the counting pass that decodes each range's columns
// to find damage: the total work of a split read, against a whole read's.
func BenchmarkReadParquetSplit(b *testing.B) {
	path := benchParquetFile(b)
	ctx := context.Background()
	for b.Loop() {
		rs := Split(ctx, path, Config{}, 1)
		if len(rs) != 5 {
			b.Fatal(rs)
		}
		for i := range rs {
			rs[i] = CountRange(ctx, rs[i], Config{})
		}
		var docs int64
		for _, r := range NumberRanges(rs) {
			docs += ReadRange(ctx, r, Config{}, func(record.Doc) {}, func(r record.Rejected) { b.Fatal(r) }).Docs
		}
		if docs != 5000 {
			b.Fatal(docs)
		}
	}
	b.ReportMetric(float64(b.N)*5000/b.Elapsed().Seconds(), "rows/s")
}
