package index

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"

	"github.com/cespare/xxhash/v2"
	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/io/parquetfile"
)

// Row is one indexed document as stored: the Parquet columns are
//
//	id        STRING (BYTE_ARRAY, UTF8), required
//	shingles  LIST<UINT64> (INT64 with logical type UINT(64)), the document's sorted,
//	          distinct shingle hashes, at most max_shingles of them
//
// both zstd-compressed.
type Row struct {
	ID       string   `parquet:"id,zstd"`
	Shingles []uint64 `parquet:"shingles,list,zstd"`
}

// RowGroupRows is the number of rows per Parquet row group. It is fixed so that the same
// rows always give the same bytes, and small enough that reading a few rows for
// verification decodes little more than they.
const RowGroupRows = 1024

// ShardOf is the shard of an id among n.
func ShardOf(id string, n int) int { return int(xxhash.Sum64String(id) % uint64(n)) }

// ShardName is the file name of shard k inside a generation directory.
func ShardName(k int) string { return fmt.Sprintf("shard-%05d.parquet", k) }

// SortRows sorts rows by id and fails on a repeated id: the pipeline joins by id, so two
// indexed documents with one id would be merged.
func SortRows(rows []Row) error {
	slices.SortFunc(rows, func(a, b Row) int { return cmp.Compare(a.ID, b.ID) })
	for i := 1; i < len(rows); i++ {
		if rows[i].ID == rows[i-1].ID {
			return fmt.Errorf("id %q occurs twice (index ids must be unique)", rows[i].ID)
		}
	}
	return nil
}

// countingHash counts and hashes what is written through it.
type countingHash struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (c *countingHash) Write(p []byte) (int, error) {
	c.h.Write(p)
	c.n += int64(len(p))
	return c.w.Write(p)
}

// WriteShard writes rows, already sorted by SortRows, to dir/rel as shard k (under its
// partial name until whole, see createPartial) and returns its manifest entry. The
// bytes depend only on the rows.
func WriteShard(ctx context.Context, dir, rel string, k int, rows []Row) (FileEntry, error) {
	out, finish, err := createPartial(ctx, dir, rel)
	if err != nil {
		return FileEntry{}, err
	}
	ch := &countingHash{w: out, h: sha256.New()}
	var shingles int64
	for _, r := range rows {
		shingles += int64(len(r.Shingles))
	}
	w := parquet.NewGenericWriter[Row](ch, parquet.MaxRowsPerRowGroup(RowGroupRows), parquet.CreatedBy("neardup", "", ""))
	err = nil
	for len(rows) > 0 && err == nil {
		n := min(len(rows), RowGroupRows)
		if _, err = w.Write(rows[:n]); err == nil {
			err = w.Flush()
		}
		rows = rows[n:]
	}
	if err == nil {
		err = w.Close()
	}
	if err := finish(err); err != nil {
		return FileEntry{}, err
	}
	return FileEntry{Shard: k, Path: rel, Rows: w.File().NumRows(), Shingles: shingles, Bytes: ch.n, SHA256: hex.EncodeToString(ch.h.Sum(nil))}, nil
}

// ReadShard calls fn with every row of a shard file and its 1-based row number, in order.
func ReadShard(ctx context.Context, path string, fn func(num int64, r Row) error) error {
	return readRows(ctx, path, nil, fn)
}

// ReadSelected calls fn with the rows numbered in want (1-based, sorted ascending), in
// order, decoding only the row groups that hold them. A wanted row past the end is an
// error.
func ReadSelected(ctx context.Context, path string, want []int64, fn func(num int64, r Row) error) error {
	if len(want) == 0 {
		return nil
	}
	return readRows(ctx, path, want, fn)
}

func readRows(ctx context.Context, path string, want []int64, fn func(num int64, r Row) error) error {
	f, err := parquetfile.Open(ctx, path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]Row, 64)
	var first int64 = 1 // number of the row group's first row
	next := 0           // index into want
	for _, rg := range f.RowGroups() {
		n := rg.NumRows()
		if want != nil {
			if next == len(want) {
				return nil
			}
			if want[next] >= first+n {
				first += n
				continue
			}
		}
		if err := readGroup(rg, first, buf, func(num int64, r Row) error {
			if want == nil {
				return fn(num, r)
			}
			if next < len(want) && want[next] == num {
				for next < len(want) && want[next] == num {
					next++
				}
				return fn(num, r)
			}
			return nil
		}); err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		first += n
	}
	if want != nil && next < len(want) {
		return fmt.Errorf("read %s: row %d does not exist (the file has %d rows)", path, want[next], first-1)
	}
	return nil
}

func readGroup(rg parquet.RowGroup, first int64, buf []Row, fn func(int64, Row) error) error {
	r := parquet.NewGenericRowGroupReader[Row](rg)
	defer r.Close()
	num := first
	for {
		clear(buf)
		n, err := r.Read(buf)
		for i := 0; i < n; i++ {
			if ferr := fn(num, buf[i]); ferr != nil {
				return ferr
			}
			num++
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("row %d: %w", num, err)
		}
	}
}
