// Package parquettest writes Parquet files for tests, and damages them on purpose for the
// tests of the readers that must survive that.
package parquettest

import (
	"bytes"
	"os"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// Write writes rows to path as one Parquet file in row groups of up to rowsPerGroup rows,
// with the writer options opts, and returns path.
func Write[T any](t testing.TB, path string, rows []T, rowsPerGroup int64, opts ...parquet.WriterOption) string {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, append([]parquet.WriterOption{parquet.MaxRowsPerRowGroup(rowsPerGroup)}, opts...)...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// CorruptRowGroup overwrites the first page header of every column chunk of row group g
// of the file at path with garbage, so reading that row group fails while the footer and
// the other row groups still read.
func CorruptRowGroup(t testing.TB, path string, g int) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range pf.Metadata().RowGroups[g].Columns {
		off := c.MetaData.DataPageOffset
		if c.MetaData.DictionaryPageOffset > 0 {
			off = c.MetaData.DictionaryPageOffset
		}
		copy(raw[off:off+8], bytes.Repeat([]byte{0xff}, 8))
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}
