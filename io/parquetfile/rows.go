package parquetfile

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// RowError is a read that failed at a row: the rows before it were delivered, Row and
// the rest of the file were not.
type RowError struct {
	Row int64 // 1-based
	Err error
}

func (e *RowError) Error() string { return fmt.Sprintf("row %d: %v", e.Row, e.Err) }

func (e *RowError) Unwrap() error { return e.Err }

// DocFunc receives one row's id and text. id is "" when the row has none (no id column,
// or a null id). text is nil when the text is null; it is valid only during the call.
type DocFunc func(row int64, id string, text []byte, textNull bool)

// ReadDocs streams the id and text of every row, in row order, reading only those two
// columns (page by page, so memory does not grow with the file). A read that breaks
// returns a *RowError for the row it could not read, after every row before it.
func (f *File) ReadDocs(cols Columns, fn DocFunc) error {
	return f.ReadDocsIn(cols, 0, len(f.pf.RowGroups()), fn)
}

// ReadDocsIn is ReadDocs over row groups [from, to) only (a range of the file read on its
// own); rows keep their numbers in the whole file, counted from the footer.
func (f *File) ReadDocsIn(cols Columns, from, to int, fn DocFunc) error {
	groups := f.pf.RowGroups()
	if from < 0 || to > len(groups) || from > to {
		return fmt.Errorf("%s: row groups %d-%d out of the file's %d", f.path, from, to, len(groups))
	}
	var row int64
	for _, rg := range groups[:from] {
		row += rg.NumRows()
	}
	for _, rg := range groups[from:to] {
		n := rg.NumRows()
		if n == 0 {
			continue
		}
		chunks := rg.ColumnChunks()
		text := newCursor(chunks[cols.Text])
		var id *cursor
		if cols.ID >= 0 {
			id = newCursor(chunks[cols.ID])
		}
		err := func() error {
			defer text.close()
			if id != nil {
				defer id.close()
			}
			for i := int64(0); i < n; i++ {
				row++
				tv, err := text.next()
				if err != nil {
					return &RowError{Row: row, Err: fmt.Errorf("text column: %w", err)}
				}
				var ids string
				if id != nil {
					iv, err := id.next()
					if err != nil {
						return &RowError{Row: row, Err: fmt.Errorf("id column: %w", err)}
					}
					ids = formatID(iv, cols.idUnsigned)
				}
				if tv.IsNull() {
					fn(row, ids, nil, true)
				} else {
					fn(row, ids, tv.ByteArray(), false)
				}
			}
			return nil
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

func formatID(v parquet.Value, unsigned bool) string {
	switch {
	case v.IsNull():
		return ""
	case v.Kind() == parquet.ByteArray:
		return string(v.ByteArray())
	case v.Kind() == parquet.Int32 && unsigned:
		return strconv.FormatUint(uint64(v.Uint32()), 10)
	case v.Kind() == parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case unsigned:
		return strconv.FormatUint(v.Uint64(), 10)
	default:
		return strconv.FormatInt(v.Int64(), 10)
	}
}

// cursor reads one top-level, non-repeated column value by value (one value per row).
// A value's bytes stay valid until the cursor moves past its page.
type cursor struct {
	r    parquet.ColumnChunkValueReader
	buf  []parquet.Value
	i, n int
}

func newCursor(c parquet.ColumnChunk) *cursor {
	return &cursor{r: parquet.NewColumnChunkValueReader(c), buf: make([]parquet.Value, 512)}
}

func (c *cursor) next() (parquet.Value, error) {
	if c.i == c.n {
		n, err := c.r.ReadValues(c.buf)
		if n == 0 {
			if err == nil || err == io.EOF {
				err = errors.New("fewer values than the row group has rows")
			}
			return parquet.Value{}, err
		}
		c.i, c.n = 0, n
	}
	v := c.buf[c.i]
	c.i++
	return v, nil
}

func (c *cursor) close() { c.r.Close() }

// ForEachRow calls fn for every row, whole, in row order with its 1-based number, reading
// one row group at a time; the row is valid only during the call. endGroup, when not nil,
// runs after each row group. A read that breaks returns a *RowError for the first row it
// could not deliver; an error from fn or endGroup is returned as is.
func (f *File) ForEachRow(fn func(num int64, row parquet.Row) error, endGroup func() error) error {
	var num int64
	buf := make([]parquet.Row, 64)
	for _, rg := range f.pf.RowGroups() {
		if rg.NumRows() == 0 {
			continue
		}
		err := func() error {
			rows := rg.Rows()
			defer rows.Close()
			for {
				n, err := rows.ReadRows(buf)
				for _, r := range buf[:n] {
					num++
					if err := fn(num, r); err != nil {
						return err
					}
				}
				switch {
				case err == io.EOF:
					return nil
				case err != nil:
					return &RowError{Row: num + 1, Err: err}
				case n == 0:
					return &RowError{Row: num + 1, Err: errors.New("row reader made no progress")}
				}
			}
		}()
		if err != nil {
			return err
		}
		if endGroup != nil {
			if err := endGroup(); err != nil {
				return err
			}
		}
	}
	return nil
}
