package sink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/parquetfile"
	"github.com/neardup/neardup/io/source"
)

// errStopped ends a Parquet re-read early, at the row where the reader stopped.
var errStopped = errors.New("stopped where the reader stopped")

// routeParquet is route for a Parquet input: it re-reads the file row group by row group
// and writes kept rows, whole, to a Parquet part with the input's schema (created even
// when no row is kept, so the merge has the schema), and removed and rejected rows as JSON
// lines with the row rendered as a JSON object. The outcomes must match the rows one for
// one, as for lines.
//
// In annotate mode (a non-empty field prefix), the kept part holds every readable row with
// the cluster columns added.
func routeParquet(ctx context.Context, file, annotate string, p *plan, kept, removed io.Writer, writeRejected func(entry, []byte) error, pt *part) error {
	var buf, rec []byte

	f, err := parquetfile.Open(ctx, file)
	if err != nil {
		return err
	}
	defer f.Close()
	js := newRowJSON(f.Schema())
	kw := parquetfile.NewWriter(kept, f)
	var aw *annotatedRows
	if annotate != "" {
		if aw, err = newAnnotatedRows(kept, f, annotate); err != nil {
			return err
		}
		kw = aw.w
	}
	ri, rj := 0, 0
	var last int64
	err = f.ForEachRow(func(n int64, row parquet.Row) error {
		last = n
		k := p.isKept(n)
		r := ri < len(p.removed) && p.removed[ri].Line == n
		j := rj < len(p.rejected) && p.rejected[rj].Line == n
		switch {
		case !k && !r && !j:
			return fmt.Errorf("row %d: no decision and no rejection (a record was lost)", n)
		case (k && r) || (k && j) || (r && j):
			return fmt.Errorf("row %d: more than one outcome", n)
		}
		switch {
		case k:
			pt.NKept++
			if err := kw.Write(row); err != nil {
				return err
			}
		case r && p.removed[ri].Kind == kindAnnotated:
			e := p.removed[ri]
			ri++
			countAnnotated(pt, e)
			if err := aw.write(row, e); err != nil {
				return fmt.Errorf("row %d: %w", n, err)
			}
		case r:
			e := p.removed[ri]
			ri++
			var err error
			if rec, err = js.appendRow(rec[:0], row); err != nil {
				return fmt.Errorf("row %d: %w", n, err)
			}
			buf = removedLine(buf[:0], e, file, rec, true)
			pt.NRemoved++
			if _, err := removed.Write(buf); err != nil {
				return err
			}
		case j:
			e := p.rejected[rj]
			rj++
			var err error
			if rec, err = js.appendRow(rec[:0], row); err != nil {
				return fmt.Errorf("row %d: %w", n, err)
			}
			if err := writeRejected(e, rec); err != nil {
				return err
			}
			if strings.HasPrefix(e.Reason, source.ReadErrorPrefix) {
				// The reader could not read this row's id or text, but the whole row read
				// here: it is rejected with its columns, and, as the reader did, the re-read
				// stops.
				return errStopped
			}
		}
		if (ri < len(p.removed) && p.removed[ri].Line <= n) || (rj < len(p.rejected) && p.rejected[rj].Line <= n) {
			return fmt.Errorf("row %d: more than one outcome", n)
		}
		return nil
	}, kw.EndRowGroup)

	var rerr *parquetfile.RowError
	switch {
	case errors.Is(err, errStopped):
	case errors.As(err, &rerr):
		n := rerr.Row
		if rj >= len(p.rejected) || p.rejected[rj].Line != n || !strings.HasPrefix(p.rejected[rj].Reason, source.ReadErrorPrefix) {
			return fmt.Errorf("re-read failed at row %d, where the reader did not fail: %w", n, rerr.Err)
		}
		if p.isKept(n) {
			return fmt.Errorf("row %d: more than one outcome", n)
		}
		last = n
		if err := writeRejected(p.rejected[rj], nil); err != nil {
			return err
		}
		rj++
	case err != nil:
		return err
	}
	if ri < len(p.removed) || rj < len(p.rejected) || p.maxKept > last {
		return fmt.Errorf("outcomes for rows after row %d, where the re-read ended: was the file changed?", last)
	}
	return kw.Close()
}

// mergeParquet merges the per-file kept parts, in sorted file order, into dst. Every part
// with rows must have the first one's schema; a part without rows adds nothing and is
// skipped (its file's rows were all removed or rejected, maybe for a schema without a
// usable column). With no row at all, dst gets the schema of the input like, or ("") of
// the first part: an output without rows still has its columns.
func mergeParquet(ctx context.Context, dst string, parts []part, like string) error {
	w, err := files.Create(ctx, dst)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		w.Close()
		return fmt.Errorf("merge kept rows into %s: %w", dst, err)
	}
	m := parquetfile.NewMerger(w)
	likeName := like
	for _, pt := range parts {
		if !pt.Kept {
			continue
		}
		if pt.NKept == 0 {
			if like == "" {
				like, likeName = pt.Base+".kept", pt.File
			}
			continue
		}
		if err := m.Append(ctx, pt.Base+".kept", pt.File); err != nil {
			return fail(err)
		}
	}
	if like != "" {
		if err := m.Like(ctx, like, likeName); err != nil {
			return fail(err)
		}
	}
	if err := m.Close(); err != nil {
		return fail(err)
	}
	return w.Close()
}
