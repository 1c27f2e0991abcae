// Package source reads neardup's input files (JSONL or plain text, optionally .gz/.zst, or
// Parquet; local or gs://) into record.Doc values, and every record it cannot use into a
// record.Rejected with its file, line and reason. Nothing is dropped silently: each
// physical line (each row, for Parquet) of every input becomes exactly one Doc or one
// Rejected, which is what lets the sink account for input = kept + removed + rejected. A
// file that cannot be read at all is one Rejected at Line 0.
//
// ReadFile and ReadRange are the plain Go readers; Read is the Beam transform around them
// (one element per byte range of a large uncompressed JSONL/text file or run of row
// groups of a large local Parquet file, else per file).
package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/jsonl"
	"github.com/neardup/neardup/io/parquetfile"
	"github.com/neardup/neardup/io/textfile"
	"github.com/neardup/neardup/record"
)

// Formats.
const (
	FormatAuto  = "auto"  // by extension, per file
	FormatJSONL = "jsonl" // one JSON object per line
	FormatText  = "text"  // one document per line
	// FormatParquet is a Parquet table with the id and text as top-level columns.
	FormatParquet = "parquet"
)

// Reasons written into Rejected records.
const (
	// ReasonEmptyLine rejects a line holding only whitespace.
	ReasonEmptyLine = "empty line"
	// ReadErrorPrefix starts the reason of the line where a damaged file could not be
	// read further (a truncated or corrupt .gz/.zst, a bad Parquet page, a failing storage
	// read). The sink relies on it: it stops re-reading a file at such a line, as this
	// reader did.
	ReadErrorPrefix = "damaged file: "
	// OpenErrorPrefix starts the reason of a file that could not be opened (Line 0), which
	// is damaged too: none of its records could be read.
	OpenErrorPrefix = ReadErrorPrefix + "cannot open: "
)

// Config says what to read and how.
type Config struct {
	Patterns  []string // globs, local or gs://
	Format    string   // "auto" (default), "jsonl", "text" or "parquet"
	IDField   string   // JSONL id field or Parquet id column, default "id"
	TextField string   // JSONL text field or Parquet text column, default "text"
	// ChunkBytes is the size of the byte ranges Read splits large uncompressed JSONL and
	// text files into; 0 means DefaultChunkBytes.
	ChunkBytes int64
	// FailOnDamage makes Read fail the job at the first damaged file (Damage.Error)
	// instead of rejecting it.
	FailOnDamage bool
	// MaxRecordBytes is the longest record read: a longer line (a Parquet row's longer
	// text) is rejected, read past without being held whole. 0 means
	// DefaultMaxRecordBytes.
	MaxRecordBytes int64
}

// DefaultMaxRecordBytes is the record size limit when none is given: far above any
// document worth deduplicating, far below what one line may cost a worker's memory.
const DefaultMaxRecordBytes = 64 << 20

// LongRecordReason is the reason a record over the size limit is rejected with.
func LongRecordReason(size, limit int64) string {
	return fmt.Sprintf("record of %d bytes is over the record size limit of %d bytes (--max-record-bytes)", size, limit)
}

// WithDefaults fills in the defaulted fields.
func (c Config) WithDefaults() Config {
	if c.Format == "" {
		c.Format = FormatAuto
	}
	if c.IDField == "" {
		c.IDField = "id"
	}
	if c.TextField == "" {
		c.TextField = "text"
	}
	if c.MaxRecordBytes <= 0 {
		c.MaxRecordBytes = DefaultMaxRecordBytes
	}
	return c
}

// lines reads the lines of r under the record size limit.
func (c Config) lines(r io.Reader) *textfile.Reader { return Lines(r, c.MaxRecordBytes) }

// Lines reads the lines of an input under the record size limit (0: the default), as
// the source reads them: every step that re-reads an input must, to see the same lines
// over the limit, and to hold none of them.
func Lines(r io.Reader, limit int64) *textfile.Reader {
	if limit <= 0 {
		limit = DefaultMaxRecordBytes
	}
	return textfile.NewReader(r).Limit(int(limit))
}

// FileFormat resolves the format of one file: format itself unless it is "auto", else by
// extension, looking through .gz/.zst: .jsonl, .json, .ndjson → jsonl; .txt → text;
// .parquet → parquet.
func FileFormat(file, format string) (string, error) {
	switch format {
	case FormatJSONL, FormatText, FormatParquet:
		return format, nil
	case FormatAuto, "":
	default:
		return "", fmt.Errorf("unknown format %q (want auto, jsonl, text or parquet)", format)
	}
	switch strings.ToLower(path.Ext(files.TrimCompression(file))) {
	case ".jsonl", ".json", ".ndjson":
		return FormatJSONL, nil
	case ".txt":
		return FormatText, nil
	case ".parquet":
		return FormatParquet, nil
	}
	return "", fmt.Errorf("cannot tell the format of %s from its extension (expected .jsonl, .json, .ndjson or .txt, optionally .gz/.zst, or .parquet); set the format explicitly", file)
}

// OutputFormat is the one format of all files, which names the kept output (kept.jsonl,
// kept.txt or kept.parquet). Inputs of mixed formats are an error: their kept records
// could not share a file.
func OutputFormat(fileList []string, format string) (string, error) {
	out := ""
	for _, f := range fileList {
		ff, err := FileFormat(f, format)
		if err != nil {
			return "", err
		}
		if out != "" && ff != out {
			return "", fmt.Errorf("inputs mix %s and %s files (e.g. %s); run them separately or set the format explicitly", out, ff, f)
		}
		out = ff
	}
	if out == "" {
		return "", fmt.Errorf("no input files")
	}
	return out, nil
}

// Files expands cfg.Patterns into the sorted, distinct input list and checks that every
// file is a regular file this process may read (files.ExpandInputs), that every
// file has a known format and that they agree; for Parquet, also that the local files
// share one schema (parquetfile.CheckSchemas). The driver calls it before building the
// graph, so a bad glob, an unknown extension or a schema mismatch fails before any work
// is done.
func Files(ctx context.Context, cfg Config) ([]string, error) {
	cfg = cfg.WithDefaults()
	list, err := files.ExpandInputs(ctx, cfg.Patterns)
	if err != nil {
		return nil, err
	}
	format, err := OutputFormat(list, cfg.Format)
	if err != nil {
		return nil, err
	}
	if format == FormatParquet {
		if err := parquetfile.CheckSchemas(ctx, list, cfg.IDField, cfg.TextField); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// Stats counts what ReadFile saw in one file.
type Stats struct {
	Docs, Rejected, InvalidUTF8 int64
	// Damaged is set when the file broke mid-way or could not be opened (damaged.go).
	Damaged *Damage
}

// ReadFile streams one file, calling doc for every usable record and rej for every other
// line (row), in order. It never fails: a file that cannot be opened gives one Rejected
// at Line 0 (a Parquet file without a usable text column, one per row), and a stream
// that breaks (e.g. a truncated .gz) gives a Rejected at the line where it broke, after
// the Docs read before it.
func ReadFile(ctx context.Context, file string, cfg Config, doc func(record.Doc), rej func(record.Rejected)) Stats {
	cfg = cfg.WithDefaults()
	var st Stats
	reject := func(line int64, reason string) {
		st.Rejected++
		rej(record.Rejected{File: file, Line: line, Reason: reason})
	}
	format, err := FileFormat(file, cfg.Format)
	if err != nil {
		reject(0, err.Error())
		return st
	}
	if format == FormatParquet {
		readParquet(ctx, file, cfg, &st, doc, reject)
		return st
	}
	rc, err := files.Open(ctx, file)
	if err != nil {
		st.damaged(file, 0, -1, err, reject)
		return st
	}
	defer rc.Close()
	lr := cfg.lines(rc)
	lp := newLineParser(file, format, cfg, &st, doc, reject)
	var good int64 // bytes of the (decompressed) lines read whole
	for {
		line, num, err := lr.Next()
		var long *textfile.LongLineError
		switch {
		case err == io.EOF:
			lp.close()
			return st
		case errors.As(err, &long):
			good += long.Bytes
			lp.addLong(long)
		case err != nil:
			lp.close()
			st.damaged(file, num, good, err, reject)
			return st
		default:
			good += int64(len(line))
			lp.add(line, num)
		}
	}
}

// parsed is what one line turned into: a Doc, or the reason it was rejected.
type parsed struct {
	doc    record.Doc
	bad    bool // the text had invalid UTF-8, replaced
	num    int64
	reason string // set when rejected
}

// parseRecord parses physical line num of file. The line is memory the caller gives away
// (never written or reused again): the text is decoded in place and shares it, which
// saves copying the corpus once more; the id, which later steps keep long after the text
// is gone, is copied, so that it does not keep the line's memory alive.
func parseRecord(file, format string, cfg Config, line []byte, num int64) parsed {
	rec := textfile.Record(line, num)
	if textfile.IsBlank(rec) {
		return parsed{num: num, reason: ReasonEmptyLine}
	}
	p := parsed{doc: record.Doc{File: file, Line: num}, num: num}
	if format == FormatJSONL {
		r, err := jsonl.ParseRecordInPlace(rec, cfg.IDField, cfg.TextField)
		if err != nil {
			return parsed{num: num, reason: err.Error()}
		}
		p.doc.Text, p.bad = r.Text, r.InvalidUTF8
		if r.HasID && r.ID != "" {
			p.doc.ID = strings.Clone(r.ID)
		}
	} else if utf8.Valid(rec) {
		p.doc.Text = unsafe.String(unsafe.SliceData(rec), len(rec))
	} else {
		p.doc.Text, p.bad = textfile.Text(rec)
	}
	return p
}

// deliver counts p and passes it to doc or reject.
func (p parsed) deliver(st *Stats, doc func(record.Doc), reject func(int64, string)) {
	if p.reason != "" {
		reject(p.num, p.reason)
		return
	}
	st.emit(p.doc, p.bad, doc)
}

// emit counts and passes on a record read from any format. A missing or empty id becomes
// FILE:LINE (the row, for Parquet): it would otherwise merge unrelated records downstream.
func (st *Stats) emit(d record.Doc, invalidUTF8 bool, doc func(record.Doc)) {
	if d.ID == "" {
		d.ID = textfile.ID(d.File, d.Line)
	}
	if invalidUTF8 {
		st.InvalidUTF8++
	}
	st.Docs++
	doc(d)
}

// ReadLines reads only the given lines (sorted, 1-based) of one file, as ReadFile would
// read them, for steps that come back for a few records: every other line is split off
// but not parsed. Lines that are not documents (rejected, blank) are skipped, and so are
// lines past a read failure. Of a Parquet file, only the row groups holding the lines are
// read.
func ReadLines(ctx context.Context, file string, cfg Config, lines []int64, doc func(record.Doc)) {
	cfg = cfg.WithDefaults()
	format, err := FileFormat(file, cfg.Format)
	if err != nil || len(lines) == 0 {
		return
	}
	next := 0
	want := func(num int64) bool {
		for next < len(lines) && lines[next] < num {
			next++
		}
		return next < len(lines) && lines[next] == num
	}
	if format == FormatParquet {
		readParquetLines(ctx, file, cfg, lines, func(d record.Doc) {
			if want(d.Line) {
				doc(d)
			}
		})
		return
	}
	rc, err := files.Open(ctx, file)
	if err != nil {
		return
	}
	defer rc.Close()
	lr := cfg.lines(rc)
	var st Stats
	// The wanted lines are parsed on the pool, as ReadFile's are: parsing them on this
	// goroutine, which also splits off every other line, kept verification's re-read of a
	// one-file corpus on one core.
	lp := newLineParser(file, format, cfg, &st, doc, func(int64, string) {})
	defer lp.close()
	for next < len(lines) {
		line, num, err := lr.Next()
		var long *textfile.LongLineError
		if errors.As(err, &long) {
			continue // rejected when it was read: no document
		}
		if err != nil {
			return
		}
		if want(num) {
			lp.add(line, num)
		}
	}
}
