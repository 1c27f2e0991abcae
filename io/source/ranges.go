package source

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/textfile"
	"github.com/neardup/neardup/record"
)

// DefaultChunkBytes is the size of the pieces a large input is split into: byte ranges of
// an uncompressed JSONL or text file, runs of row groups of a Parquet file. Large enough
// that the per-range open and seek cost nothing, small enough that a 100 GB file gives a
// runner 1,600 pieces to spread over its workers.
const DefaultChunkBytes = 64 << 20

// A Range is a piece of one input file. A split JSONL/text range owns the lines that
// start at a byte offset in [Start, End), as Beam's textio does: a line crossing End is
// read whole by the range it starts in, and the next range skips it. A Parquet range
// (RowGroups) owns the rows of row groups [Start, End). A whole range (End < 0) is the
// entire file read as a stream: compressed files (a gzip or zstd stream cannot be entered
// in the middle), remote Parquet files (read through a local copy), and files no larger
// than one chunk.
type Range struct {
	File       string
	Start, End int64
	RowGroups  bool  // Start and End index row groups, not bytes
	Index      int   // position among the file's ranges, from 0
	Lines      int64 // lines (rows) the range owns, once counted (CountRange)
	First      int64 // file line number of the range's first line, once numbered
	// A range that broke when it was counted keeps its first Good lines and the error
	// (Damage); the ranges after it in its file are AfterDamage and read nothing, so a
	// damaged file gives what a whole read gives: the records before the break and one
	// rejection where it broke.
	Good        int64
	Damage      string
	AfterDamage bool
}

// Whole reports whether r is a whole file.
func (r Range) Whole() bool { return r.End < 0 }

// Splittable reports whether file can be read in byte ranges: uncompressed JSONL or text.
func Splittable(file, format string) bool {
	f, err := FileFormat(file, format)
	return err == nil && f != FormatParquet && files.Compression(file) == ""
}

// Split cuts file into the ranges Read reads it in, of about chunk bytes: byte ranges of
// a large uncompressed JSONL or text file (SplitFile), runs of row groups of a local
// Parquet file (splitParquet); any other file is one whole range.
func Split(ctx context.Context, file string, cfg Config, chunk int64) []Range {
	cfg = cfg.WithDefaults()
	whole := []Range{{File: file, End: -1}}
	format, err := FileFormat(file, cfg.Format)
	switch {
	case err != nil || chunk <= 0 || files.Compression(file) != "":
		return whole
	case format == FormatParquet:
		return splitParquet(ctx, file, cfg, chunk)
	}
	size, err := Size(ctx, file)
	if err != nil {
		// Read whole: the reader then rejects the file at line 0 with the open error.
		return whole
	}
	return SplitFile(file, cfg.Format, size, chunk)
}

// SplitFile cuts a file of size bytes into ranges of chunk bytes when it is splittable
// and larger than one chunk; otherwise it is one whole range.
func SplitFile(file, format string, size, chunk int64) []Range {
	if chunk <= 0 || size <= chunk || !Splittable(file, format) {
		return []Range{{File: file, End: -1}}
	}
	var rs []Range
	for start := int64(0); start < size; start += chunk {
		rs = append(rs, Range{File: file, Start: start, End: min(start+chunk, size), Index: len(rs)})
	}
	return rs
}

// Size returns the size of file in bytes.
func Size(ctx context.Context, file string) (int64, error) {
	fs, err := filesystem.New(ctx, file)
	if err != nil {
		return 0, fmt.Errorf("size of %s: %w", file, err)
	}
	defer fs.Close()
	n, err := fs.Size(ctx, file)
	if err != nil {
		return 0, fmt.Errorf("size of %s: %w", file, err)
	}
	return n, nil
}

// eachLine calls fn with every line r owns (terminator included) and its number counted
// from 1 within the range, until fn returns false; a line over cfg's record size limit
// comes as long, with only the start of its bytes the reader held (it is read past,
// never held whole, also when it crosses the range's end or starts in the range before). Counting, reading and the
// sink's re-read all use it, so they agree on which range a line belongs to.
func eachLine(ctx context.Context, r Range, cfg Config, fn func(line []byte, n int64, long *textfile.LongLineError) bool) error {
	// Start one byte early: the range's first line starts at Start only if the byte
	// before it ends a line.
	pos := max(r.Start-1, 0)
	raw, err := openAt(ctx, r.File, pos)
	if err != nil {
		return err
	}
	defer raw.Close()
	br := bufio.NewReaderSize(raw, 1<<20)
	lr := cfg.WithDefaults().lines(br)
	next := func() ([]byte, int64, *textfile.LongLineError, error) {
		line, num, err := lr.Next()
		var long *textfile.LongLineError
		if errors.As(err, &long) {
			pos += long.Bytes
			return line, num, long, nil
		}
		pos += int64(len(line))
		return line, num, nil, err
	}
	if r.Start > 0 {
		b, err := br.ReadByte()
		if err != nil {
			return fmt.Errorf("read %s at byte %d: %w", r.File, pos, err)
		}
		pos++
		if b != '\n' {
			// The line in progress belongs to the range before: read past it, holding
			// none of it; when it goes on past End, no line starts in this range.
			for {
				frag, err := br.ReadSlice('\n')
				pos += int64(len(frag))
				if err == nil {
					break
				}
				if err == io.EOF || (err == bufio.ErrBufferFull && pos >= r.End) {
					return nil
				}
				if err != bufio.ErrBufferFull {
					return fmt.Errorf("read %s at byte %d: %w", r.File, pos, err)
				}
			}
		}
	}
	for pos < r.End {
		at := pos
		line, num, long, err := next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s at byte %d: %w", r.File, at, err)
		}
		if !fn(line, num, long) {
			return nil
		}
	}
	return nil
}

// RangeLines returns a reader of the lines split range r owns, for a step that re-reads
// the range as it was read: each call of next returns a line (terminator included) and
// its number in the file (r.First on); a line over cfg's record size limit comes as the
// start of its bytes with a *textfile.LongLineError, a read failure as its error at the number
// of the line it broke, and the end as io.EOF. stop closes the file; call it once done.
func RangeLines(ctx context.Context, r Range, cfg Config) (next func() ([]byte, int64, error), stop func()) {
	type line struct {
		b    []byte
		n    int64
		long *textfile.LongLineError
	}
	var err error
	last := r.First - 1
	lines, stop := iter.Pull(func(yield func(line) bool) {
		err = eachLine(ctx, r, cfg, func(b []byte, n int64, long *textfile.LongLineError) bool {
			return yield(line{b, r.First + n - 1, long})
		})
	})
	next = func() ([]byte, int64, error) {
		l, ok := lines()
		switch {
		case ok && l.long != nil:
			last, l.long.Line = l.n, l.n
			return l.b, l.n, l.long
		case ok:
			last = l.n
			return l.b, l.n, nil
		case err != nil:
			return nil, last + 1, err
		}
		return nil, last, io.EOF
	}
	return next, stop
}

// openAt opens file for reading from byte pos: in place when it can be read at any offset
// (local, gs:// by ranged reads), else by reading and dropping the bytes before pos.
func openAt(ctx context.Context, file string, pos int64) (io.ReadCloser, error) {
	ra, ok, err := files.OpenReaderAt(ctx, file)
	if err != nil {
		return nil, err
	}
	if ok {
		return struct {
			io.Reader
			io.Closer
		}{io.NewSectionReader(ra, pos, max(ra.Size()-pos, 0)), ra}, nil
	}
	fs, err := filesystem.New(ctx, file)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", file, err)
	}
	raw, err := fs.OpenRead(ctx, file)
	if err != nil {
		fs.Close()
		return nil, fmt.Errorf("open %s: %w", file, err)
	}
	if sk, ok := raw.(io.Seeker); ok {
		_, err = sk.Seek(pos, io.SeekStart)
	} else {
		_, err = io.CopyN(io.Discard, raw, pos)
	}
	if err != nil {
		raw.Close()
		fs.Close()
		return nil, fmt.Errorf("read %s at byte %d: %w", file, pos, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{raw, closeBoth{raw, fs}}, nil
}

type closeBoth [2]io.Closer

func (c closeBoth) Close() error { return errors.Join(c[0].Close(), c[1].Close()) }

// CountLines returns how many lines split range r owns.
func CountLines(ctx context.Context, r Range, cfg Config) (int64, error) {
	var n int64
	err := eachLine(ctx, r, cfg, func([]byte, int64, *textfile.LongLineError) bool { n++; return true })
	return n, err
}

// CountRange returns split range r with its Lines counted, and, when reading it broke,
// the lines before the break (Good) and the error (Damage). A JSONL/text range is
// scanned for newlines; a Parquet range's rows are known from the footer, but its id and
// text columns are decoded once here, because a damaged row group must end its file's
// records there (ranges after it read nothing) as it ends a whole read.
func CountRange(ctx context.Context, r Range, cfg Config) Range {
	if r.Whole() {
		return r
	}
	var n int64
	var err error
	if r.RowGroups {
		n, err = checkParquetRange(ctx, r, cfg)
	} else {
		n, err = CountLines(ctx, r, cfg)
		r.Lines = n
	}
	if err != nil {
		r.Good, r.Damage = n, err.Error()
	}
	return r
}

// NumberRanges gives each counted range of one file its first line number (1 plus the
// lines of the ranges before it) and marks the ranges after the first damaged one, in
// Index order.
func NumberRanges(rs []Range) []Range {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b Range) int { return cmp.Compare(a.Index, b.Index) })
	first, damaged := int64(1), false
	for i := range rs {
		rs[i].First = first
		rs[i].AfterDamage = damaged
		first += rs[i].Lines
		damaged = damaged || rs[i].Damage != ""
	}
	return rs
}

// ReadRange reads range r like ReadFile reads a whole file; r.First is the file's line
// (row) number of the range's first line (NumberRanges), so records keep the ids and line
// numbers a whole read gives them. A read failure rejects the line where it happened and
// ends the range, and so does the damage found when r was counted (r.Damage).
func ReadRange(ctx context.Context, r Range, cfg Config, doc func(record.Doc), rej func(record.Rejected)) Stats {
	if r.Whole() {
		return ReadFile(ctx, r.File, cfg, doc, rej)
	}
	cfg = cfg.WithDefaults()
	var st Stats
	if r.AfterDamage {
		return st
	}
	reject := func(line int64, reason string) {
		st.Rejected++
		rej(record.Rejected{File: r.File, Line: line, Reason: reason})
	}
	format, err := FileFormat(r.File, cfg.Format)
	if err != nil {
		reject(0, err.Error())
		return st
	}
	// Lines past a damage found by the count are never read, even when this read gets
	// past it: the ranges after it read nothing, so the file ends there.
	last := int64(-1)
	if r.Damage != "" {
		last = r.First + r.Good - 1
	}
	good := int64(-1) // bytes of the lines read whole; unknown for Parquet rows
	if r.RowGroups {
		if readParquetRange(ctx, r, cfg, last, &st, doc, reject) {
			return st
		}
	} else {
		read := r.First - 1
		good = 0
		lp := newLineParser(r.File, format, cfg, &st, doc, reject)
		err = eachLine(ctx, r, cfg, func(line []byte, n int64, long *textfile.LongLineError) bool {
			num := r.First + n - 1
			switch {
			case last >= 0 && num > last:
			case long != nil:
				read = num
				good += long.Bytes
				long.Line = num
				lp.addLong(long)
			default:
				read = num
				good += int64(len(line))
				lp.add(line, num)
			}
			return true
		})
		lp.close()
		if err != nil {
			// A range read that breaks (a gs:// stream cut mid-way) is damage like a
			// truncated .gz: the lines after it are unknown.
			st.damaged(r.File, read+1, good, err, reject)
			return st
		}
	}
	if r.Damage != "" {
		st.damaged(r.File, last+1, good, errors.New(r.Damage), reject)
	}
	return st
}
