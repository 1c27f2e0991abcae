package sink

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
)

type benchRow struct {
	ID    string  `parquet:"id"`
	URL   string  `parquet:"url"`
	Lang  string  `parquet:"lang,dict"`
	Score float64 `parquet:"score"`
	Text  string  `parquet:"text"`
}

// BenchmarkWritePartParquet measures re-reading one Parquet file whole and routing its
// rows (90% kept into a Parquet part, 10% removed as JSON lines). Reported in rows per
// second.
func BenchmarkWritePartParquet(b *testing.B) {
	const n = 5000
	text := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 25)
	rows := make([]benchRow, n)
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
	dir := b.TempDir()
	path := filepath.Join(dir, "bench.parquet")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var p plan
		for l := int64(1); l <= n; l++ {
			e := kept(l)
			if l%10 == 0 {
				e = removedAt(l, fmt.Sprint("doc-", l), "doc-0", 0.9)
			}
			if err := p.add(e); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := writePart(context.Background(), filepath.Join(dir, "tmp"), "parquet", "", "", path, &p, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*5000/b.Elapsed().Seconds(), "rows/s")
}
