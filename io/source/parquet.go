package source

import (
	"context"
	"errors"
	"fmt"

	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/parquetfile"
	"github.com/neardup/neardup/io/textfile"
	"github.com/neardup/neardup/record"
)

// readParquet reads one Parquet file's id and text columns into Docs, one per row, with
// the 1-based row number as the Line. A null text rejects its row; a file that cannot be
// opened is damaged; each row of a file whose schema has no usable text (or id) column is
// rejected.
func readParquet(ctx context.Context, file string, cfg Config, st *Stats, doc func(record.Doc), reject func(int64, string)) {
	f, cols, ok := openParquet(ctx, file, cfg, false, st, reject)
	if !ok {
		return
	}
	defer f.Close()
	st.parquetDamage(file, readGroups(f, cols, file, cfg, 0, len(f.Groups()), -1, st, doc, reject), reject)
}

// readParquetLines reads the row groups of a Parquet file that hold any of lines (sorted
// row numbers) into Docs, stopping at a read failure; rejections are dropped.
func readParquetLines(ctx context.Context, file string, cfg Config, lines []int64, doc func(record.Doc)) {
	var st Stats
	noReject := func(int64, string) {}
	f, cols, ok := openParquet(ctx, file, cfg, true, &st, noReject)
	if !ok {
		return
	}
	defer f.Close()
	first, next := int64(1), 0
	for g, group := range f.Groups() {
		end := first + group.Rows
		for next < len(lines) && lines[next] < first {
			next++
		}
		if next == len(lines) {
			return
		}
		if lines[next] < end && readGroups(f, cols, file, cfg, g, g+1, -1, &st, doc, noReject) != nil {
			return
		}
		first = end
	}
}

// readParquetRange reads the row groups of Parquet range r, rows up to last (every row
// when last < 0). It reports whether it rejected the range for a failure of its own (the
// file could not be opened, or broke before last).
func readParquetRange(ctx context.Context, r Range, cfg Config, last int64, st *Stats, doc func(record.Doc), reject func(int64, string)) bool {
	f, cols, ok := openParquet(ctx, r.File, cfg, true, st, reject)
	if !ok {
		return true
	}
	defer f.Close()
	err := readGroups(f, cols, r.File, cfg, int(r.Start), int(r.End), last, st, doc, reject)
	var rerr *parquetfile.RowError
	if last >= 0 && errors.As(err, &rerr) && rerr.Row > last {
		// Past the damage the count found: the caller reports that one.
		return false
	}
	st.parquetDamage(r.File, err, reject)
	return err != nil
}

// openParquet opens file and locates its id and text columns; a file that cannot be
// opened is damaged, each row of one whose columns are unusable is rejected. A reader of a
// part of the file opens it in place (parquetfile.OpenInPlace): a remote file is then not
// copied whole for the few row groups it reads.
func openParquet(ctx context.Context, file string, cfg Config, inPlace bool, st *Stats, reject func(int64, string)) (*parquetfile.File, parquetfile.Columns, bool) {
	open := parquetfile.Open
	if inPlace {
		open = parquetfile.OpenInPlace
	}
	f, err := open(ctx, file)
	if err != nil {
		st.damaged(file, 0, -1, err, reject)
		return nil, parquetfile.Columns{}, false
	}
	cols, err := parquetfile.FindColumns(f.Schema(), cfg.IDField, cfg.TextField)
	if err != nil {
		// Only a file the driver could not check (parquetfile.CheckSchemas) gets here:
		// each of its rows is rejected with the reason, so that every row is counted.
		for row := int64(1); row <= f.NumRows(); row++ {
			reject(row, err.Error())
		}
		f.Close()
		return nil, parquetfile.Columns{}, false
	}
	return f, cols, true
}

// readGroups turns the rows of row groups [from, to) of f, up to row last (all when
// last < 0), into Docs and rejections, and returns the read error.
func readGroups(f *parquetfile.File, cols parquetfile.Columns, file string, cfg Config, from, to int, last int64, st *Stats, doc func(record.Doc), reject func(int64, string)) error {
	nullText := fmt.Sprintf("field %q: null", cfg.TextField)
	return f.ReadDocsIn(cols, from, to, func(row int64, id string, text []byte, textNull bool) {
		switch {
		case last >= 0 && row > last:
		case textNull:
			reject(row, nullText)
		case int64(len(text)) > cfg.MaxRecordBytes:
			reject(row, LongRecordReason(int64(len(text)), cfg.MaxRecordBytes))
		default:
			d := record.Doc{ID: id, File: file, Line: row}
			var bad bool
			d.Text, bad = textfile.Text(text)
			st.emit(d, bad, doc)
		}
	})
}

// parquetDamage records a Parquet read error, if any, as the file's damage.
func (st *Stats) parquetDamage(file string, err error, reject func(int64, string)) {
	var rerr *parquetfile.RowError
	switch {
	case errors.As(err, &rerr):
		st.damaged(file, rerr.Row, -1, rerr.Err, reject)
	case err != nil:
		// ReadDocs reports every read failure as a RowError; anything else is a bug, but it
		// must still not lose the file silently.
		st.damaged(file, 0, -1, err, reject)
	}
}

// splitParquet cuts a Parquet file into runs of whole row groups of about chunk bytes each
// (by the footer's compressed sizes; a row group larger than chunk is a run of its own).
// Only a file that can be read in place (local, gs://) is split: any other is read
// through one local copy (parquetfile.Open), which each range would make again. A file
// whose footer or columns cannot be read stays whole too: the whole read rejects it once.
func splitParquet(ctx context.Context, file string, cfg Config, chunk int64) []Range {
	whole := []Range{{File: file, End: -1}}
	if !files.CanReadAt(file) {
		return whole
	}
	f, err := parquetfile.OpenInPlace(ctx, file)
	if err != nil {
		return whole
	}
	defer f.Close()
	if _, err := parquetfile.FindColumns(f.Schema(), cfg.IDField, cfg.TextField); err != nil {
		return whole
	}
	groups := f.Groups()
	runs := cutGroups(groups, chunk)
	if len(runs) < 2 {
		return whole
	}
	rs := make([]Range, len(runs))
	for i, run := range runs {
		r := Range{File: file, Start: int64(run[0]), End: int64(run[1]), RowGroups: true, Index: i}
		for _, g := range groups[run[0]:run[1]] {
			r.Lines += g.Rows
		}
		rs[i] = r
	}
	return rs
}

// cutGroups cuts row groups into consecutive runs [from, to) of at most chunk bytes, or of
// one row group when that alone is larger.
func cutGroups(groups []parquetfile.Group, chunk int64) [][2]int {
	var runs [][2]int
	start, size := 0, int64(0)
	for i, g := range groups {
		if i > start && size+g.Bytes > chunk {
			runs = append(runs, [2]int{start, i})
			start, size = i, 0
		}
		size += g.Bytes
	}
	if len(groups) > 0 {
		runs = append(runs, [2]int{start, len(groups)})
	}
	return runs
}

// checkParquetRange decodes the id and text columns of Parquet range r and returns how
// many of its rows read before a read error, and that error.
func checkParquetRange(ctx context.Context, r Range, cfg Config) (int64, error) {
	cfg = cfg.WithDefaults()
	f, err := parquetfile.OpenInPlace(ctx, r.File)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cols, err := parquetfile.FindColumns(f.Schema(), cfg.IDField, cfg.TextField)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", r.File, err)
	}
	var n int64
	err = f.ReadDocsIn(cols, int(r.Start), int(r.End), func(int64, string, []byte, bool) { n++ })
	var rerr *parquetfile.RowError
	if errors.As(err, &rerr) {
		// The error as a whole read reports it; its row is First + n.
		return n, rerr.Err
	}
	return n, err
}
