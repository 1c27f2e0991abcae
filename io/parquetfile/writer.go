package parquetfile

import (
	"context"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Writer writes rows of one input file with that file's schema (each column's type,
// repetition, encoding and compression) and footer key/value metadata, so a reader sees
// the same table, less the rows not written.
type Writer struct {
	w        *parquet.Writer
	one      []parquet.Row
	buffered int64
}

// NewWriter writes to out rows shaped like like's. Nothing is complete until Close.
func NewWriter(out io.Writer, like *File) *Writer {
	return &Writer{w: parquet.NewWriter(out, writerOptions(like.Schema(), like.KeyValueMetadata())...), one: make([]parquet.Row, 1)}
}

func writerOptions(schema *parquet.Schema, kv []format.KeyValue) []parquet.WriterOption {
	opts := []parquet.WriterOption{schema}
	for _, m := range kv {
		opts = append(opts, parquet.KeyValueMetadata(m.Key, m.Value))
	}
	return opts
}

// Write appends one row (as read from a file with the same schema).
func (w *Writer) Write(row parquet.Row) error {
	w.one[0] = row
	_, err := w.w.WriteRows(w.one)
	w.one[0] = nil
	if err != nil {
		return fmt.Errorf("write Parquet row: %w", err)
	}
	w.buffered++
	return nil
}

// EndRowGroup writes the buffered rows out as one row group. Calling it at each input row
// group's end keeps the writer's memory to one input row group.
func (w *Writer) EndRowGroup() error {
	if w.buffered == 0 {
		return nil
	}
	w.buffered = 0
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("write Parquet row group: %w", err)
	}
	return nil
}

// Close writes the remaining rows and the footer. It does not close out.
func (w *Writer) Close() error {
	if err := w.w.Close(); err != nil {
		return fmt.Errorf("write Parquet footer: %w", err)
	}
	return nil
}

// Merger concatenates Parquet files of one schema into one output, row group by row group
// (pages are copied without re-encoding where the library can), in the order appended.
type Merger struct {
	out   io.Writer
	w     *parquet.Writer
	first string
}

// NewMerger writes the merge to out. Nothing is complete until Close.
func NewMerger(out io.Writer) *Merger { return &Merger{out: out} }

// Append adds every row of the Parquet file at path. name is the input the file stands
// for, named in errors. The first file appended sets the schema and the footer metadata;
// a later file with another schema is an error.
func (m *Merger) Append(ctx context.Context, path, name string) error {
	f, err := Open(ctx, path)
	if err != nil {
		return err
	}
	defer f.Close()
	if m.w == nil {
		m.w = parquet.NewWriter(m.out, writerOptions(f.Schema(), f.KeyValueMetadata())...)
		m.first = name
	} else if err := sameSchema(m.w.Schema(), f.Schema(), m.first, name); err != nil {
		return err
	}
	for _, rg := range f.pf.RowGroups() {
		if rg.NumRows() == 0 {
			continue
		}
		if _, err := m.w.WriteRowGroup(rg); err != nil {
			return fmt.Errorf("merge rows of %s: %w", name, err)
		}
	}
	return nil
}

// Like gives the output the schema and footer metadata of the Parquet file at path when
// nothing was appended, so that an output without rows still has its input's columns;
// after an Append it does nothing. name is the input the file stands for, named in errors.
func (m *Merger) Like(ctx context.Context, path, name string) error {
	if m.w != nil {
		return nil
	}
	f, err := OpenInPlace(ctx, path)
	if err != nil {
		return err
	}
	defer f.Close()
	m.w = parquet.NewWriter(m.out, writerOptions(f.Schema(), f.KeyValueMetadata())...)
	m.first = name
	return nil
}

// Close writes the footer. With nothing appended (and no Like) it writes a valid Parquet
// file with no columns and no rows, so the output always exists.
func (m *Merger) Close() error {
	if m.w == nil {
		m.w = parquet.NewWriter(m.out, parquet.NewSchema("schema", parquet.Group{}))
	}
	if err := m.w.Close(); err != nil {
		return fmt.Errorf("write Parquet footer: %w", err)
	}
	return nil
}
