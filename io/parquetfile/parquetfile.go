// Package parquetfile is neardup's Parquet layer (Hugging Face datasets ship Parquet). The
// source reads only a file's id and text columns into documents, row group by row group;
// the sink re-reads whole rows by number to route them, writes the kept rows with the
// input's own schema, and merges per-file kept parts into one kept.parquet. Rows are
// numbered from 1 across the file's row groups, so a row number names the same row on
// both sides, as a line number does for JSONL.
//
// Parquet needs random access (the footer is at the end). Local files are read in place;
// remote (gs://) and .gz/.zst-wrapped files are first copied to a local temporary file.
package parquetfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/neardup/neardup/io/files"
)

// File is an open Parquet file. Only its footer has been read.
type File struct {
	path    string
	pf      *parquet.File
	closers []func() error
}

// Open opens path (local or gs://) for reading. Opening reads the footer only; a file that
// is not Parquet, or whose footer is damaged, fails here. A remote or compressed file is
// first copied to a local temporary file (one streaming read: fastest when most of it
// will be read).
func Open(ctx context.Context, path string) (*File, error) {
	if files.IsLocal(path) && files.Compression(path) == "" {
		return OpenInPlace(ctx, path)
	}
	return openCopy(ctx, path)
}

func openCopy(ctx context.Context, path string) (*File, error) {
	tmp, n, err := spool(ctx, path)
	if err != nil {
		return nil, err
	}
	return openAt(path, tmp, n, tmp.Close, func() error { return os.Remove(tmp.Name()) })
}

// OpenInPlace is Open without the local copy of an uncompressed gs:// object: the footer
// and the pages read are fetched by ranged reads, so a reader of a few row groups of a
// large remote file (a range of it, the rows verification asks for) fetches only those.
// Other paths are opened as Open does.
func OpenInPlace(ctx context.Context, path string) (*File, error) {
	ra, ok, err := files.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return openCopy(ctx, path)
	}
	return openAt(path, ra, ra.Size(), ra.Close)
}

func openAt(path string, ra io.ReaderAt, size int64, closers ...func() error) (*File, error) {
	f := &File{path: path, closers: closers}
	pf, err := parquet.OpenFile(ra, size, parquet.SkipBloomFilters(true), parquet.ReadBufferSize(1<<20))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open %s: not a readable Parquet file: %w", path, err)
	}
	f.pf = pf
	return f, nil
}

// spool copies a file that cannot be read at random offsets where it is (an object in
// gs://, a compressed stream) into a local temporary file, streaming.
func spool(ctx context.Context, path string) (*os.File, int64, error) {
	rc, err := files.Open(ctx, path)
	if err != nil {
		return nil, 0, err
	}
	defer rc.Close()
	tmp, err := os.CreateTemp("", "neardup-parquet-*")
	if err != nil {
		return nil, 0, fmt.Errorf("open %s: local copy: %w", path, err)
	}
	n, err := io.Copy(tmp, rc)
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, 0, fmt.Errorf("open %s: local copy: %w", path, err)
	}
	return tmp, n, nil
}

// Close releases the file (and deletes its local copy, if one was made).
func (f *File) Close() error {
	var errs []error
	for _, c := range f.closers {
		errs = append(errs, c())
	}
	f.closers = nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close %s: %w", f.path, err)
	}
	return nil
}

// Schema is the file's schema.
func (f *File) Schema() *parquet.Schema { return f.pf.Schema() }

// RowGroups are the file's row groups, for readers of a known schema (the index).
func (f *File) RowGroups() []parquet.RowGroup { return f.pf.RowGroups() }

// NumRows is the number of rows in the file.
func (f *File) NumRows() int64 { return f.pf.NumRows() }

// KeyValueMetadata is the footer's key/value metadata (Arrow's schema, Hugging Face's
// dataset features), which the sink copies into kept.parquet.
func (f *File) KeyValueMetadata() []format.KeyValue { return f.pf.Metadata().KeyValueMetadata }

// Columns locates the id and text columns of a schema.
type Columns struct {
	Text int // leaf column index of the text column
	ID   int // leaf column index of the id column, -1 when the schema has none
	// idUnsigned marks an unsigned integer id column, whose values print as unsigned.
	idUnsigned bool
}

// FindColumns locates the id and text columns among the schema's top-level columns. The
// text column must hold byte arrays (strings or unannotated binary); the id column, when
// present, strings or integers. Errors are reasons for a rejected file, naming the field
// the way the JSONL reader does.
func FindColumns(schema *parquet.Schema, idField, textField string) (Columns, error) {
	cols := Columns{ID: -1}
	text, ok, err := topLevelLeaf(schema, textField)
	if err != nil {
		return cols, err
	}
	if !ok {
		return cols, fmt.Errorf("field %q: no such top-level column (the file has %s)", textField, fieldList(schema))
	}
	if !isString(text.Node) {
		return cols, fmt.Errorf("field %q: column type %s is not a string (BYTE_ARRAY)", textField, typeName(text.Node))
	}
	cols.Text = text.ColumnIndex

	id, ok, err := topLevelLeaf(schema, idField)
	if err != nil {
		return cols, err
	}
	if ok {
		signed, isInt := integer(id.Node)
		if !isString(id.Node) && !isInt {
			return cols, fmt.Errorf("field %q: column type %s is not a string or an integer", idField, typeName(id.Node))
		}
		cols.ID, cols.idUnsigned = id.ColumnIndex, isInt && !signed
	}
	return cols, nil
}

// topLevelLeaf finds a top-level column by name. A group (struct, list, map) or a repeated
// column by that name is an error: it holds no single value per row.
func topLevelLeaf(schema *parquet.Schema, name string) (parquet.LeafColumn, bool, error) {
	for _, f := range schema.Fields() {
		if f.Name() != name {
			continue
		}
		switch {
		case !f.Leaf():
			return parquet.LeafColumn{}, false, fmt.Errorf("field %q: column is a group (%s), not a single value per row", name, typeName(f))
		case f.Repeated():
			return parquet.LeafColumn{}, false, fmt.Errorf("field %q: column is repeated, not a single value per row", name)
		}
		leaf, ok := schema.Lookup(name)
		if !ok {
			return parquet.LeafColumn{}, false, fmt.Errorf("field %q: column not found in the schema's leaves", name)
		}
		return leaf, true, nil
	}
	return parquet.LeafColumn{}, false, nil
}

func logical(n parquet.Node) format.LogicalTypeValue {
	if lt := n.Type().LogicalType(); lt != nil {
		return lt.Value
	}
	return nil
}

// isString accepts byte-array columns holding text: STRING, ENUM or JSON annotated, or
// unannotated binary (which many writers use for strings).
func isString(n parquet.Node) bool {
	if n.Type().Kind() != parquet.ByteArray {
		return false
	}
	switch logical(n).(type) {
	case nil, *format.StringType, *format.EnumType, *format.JsonType:
		return true
	}
	return false
}

// integer reports whether n is a plain integer column (INT32/INT64, unannotated or INT
// annotated; not a date, time or decimal) and whether it is signed.
func integer(n parquet.Node) (signed, ok bool) {
	switch n.Type().Kind() {
	case parquet.Int32, parquet.Int64:
	default:
		return false, false
	}
	switch lt := logical(n).(type) {
	case nil:
		return true, true
	case *format.IntType:
		return lt.IsSigned, true
	}
	return false, false
}

func typeName(n parquet.Node) string {
	switch lt := logical(n).(type) {
	case nil:
	case *format.IntType:
		return map[bool]string{true: "", false: "U"}[lt.IsSigned] + fmt.Sprintf("INT%d", lt.BitWidth)
	default:
		return lt.String()
	}
	if n.Leaf() {
		return n.Type().Kind().String()
	}
	return "group"
}

// fieldList names a schema's top-level columns for an error message, cut after a few.
func fieldList(schema *parquet.Schema) string {
	fields := schema.Fields()
	if len(fields) == 0 {
		return "no columns"
	}
	var names []string
	for i, f := range fields {
		if i == 8 {
			names = append(names, fmt.Sprintf("… %d more", len(fields)-i))
			break
		}
		names = append(names, fmt.Sprintf("%q", f.Name()))
	}
	return "columns " + strings.Join(names, ", ")
}

// CheckSchemas fails, naming the file, when a Parquet file among paths has no usable id
// or text column (FindColumns: the column missing, or of a type that holds no string),
// or when the usable files do not all share one schema: their kept rows could not share
// kept.parquet. Only files that can be read in place are checked (local ones, gs://;
// their footer alone is read); a file that cannot be opened is left to the reader, which
// reports it damaged. The reader accounts for every row of a file not checked here.
func CheckSchemas(ctx context.Context, paths []string, idField, textField string) error {
	var first *parquet.Schema
	var firstPath string
	for _, p := range paths {
		if !files.CanReadAt(p) {
			continue
		}
		f, err := OpenInPlace(ctx, p)
		if err != nil {
			continue
		}
		schema := f.Schema()
		f.Close()
		if _, err := FindColumns(schema, idField, textField); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if first == nil {
			first, firstPath = schema, p
			continue
		}
		if err := sameSchema(first, schema, firstPath, p); err != nil {
			return err
		}
	}
	return nil
}

func sameSchema(a, b *parquet.Schema, pathA, pathB string) error {
	if parquet.EqualNodes(a, b) {
		return nil
	}
	return fmt.Errorf("%s and %s have different Parquet schemas, so their kept rows cannot share kept.parquet; run them separately\n%s:\n%s\n%s:\n%s",
		pathA, pathB, pathA, a, pathB, b)
}
