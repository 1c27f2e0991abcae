package sink

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/io/textfile"
	"github.com/neardup/neardup/record"
)

// Outcome kinds of one input line.
const (
	kindKept int32 = iota
	kindRemoved
	kindRejected
	kindAnnotated // --mode annotate: any readable record, kept or a duplicate
	kindKeptShown // kept, and its text may be on report.html (record.Decision.Shown)
)

// entry is the outcome of one input line, as shuffled to the file's writer. Kept lines
// carry only their number: they are the bulk, and need nothing else.
type entry struct {
	Line       int64
	Kind       int32
	ID         string
	Cluster    string
	Similarity float64
	Reason     string
	Index      string
	Size       int64 // annotate: the cluster's size
	Duplicate  bool  // annotate: the record would be removed
}

func fromDecision(d record.Decision) entry {
	if !d.Removed {
		if d.Shown {
			return entry{Line: d.Line, Kind: kindKeptShown}
		}
		return entry{Line: d.Line, Kind: kindKept}
	}
	return entry{Line: d.Line, Kind: kindRemoved, ID: d.ID, Cluster: d.Cluster, Similarity: d.Similarity, Index: d.Index}
}

func fromRejected(r record.Rejected) entry {
	return entry{Line: r.Line, Kind: kindRejected, Reason: r.Reason}
}

// plan holds one piece's outcomes in a compact form: a bitmap for kept lines (one bit per
// line after base, 12.5 MB for 100M lines) and sorted slices for the rarer removed and
// rejected ones, and for the kept lines the report may show. In annotate mode every
// readable record is listed in removed, as a kindAnnotated entry.
type plan struct {
	base     int64 // the line before the piece's first: the bitmap's bit 0 is line base
	kept     []uint64
	maxKept  int64
	shown    []int64
	removed  []entry
	rejected []entry
	// The documents decided kept and removed (in annotate mode, not a duplicate and a
	// duplicate), as the entries tell.
	nKept, nRemoved int64
}

func (p *plan) add(e entry) error {
	if e.Line < 0 || (e.Line == 0 && e.Kind != kindRejected) {
		return fmt.Errorf("line %d: invalid line number", e.Line)
	}
	switch e.Kind {
	case kindKept, kindKeptShown:
		if e.Line < p.base {
			return fmt.Errorf("line %d: before its piece, which starts after line %d", e.Line, p.base)
		}
		w, bit := (e.Line-p.base)/64, uint64(1)<<((e.Line-p.base)%64)
		for int64(len(p.kept)) <= w {
			p.kept = append(p.kept, 0)
		}
		if p.kept[w]&bit != 0 {
			return fmt.Errorf("line %d: kept twice", e.Line)
		}
		p.kept[w] |= bit
		p.nKept++
		p.maxKept = max(p.maxKept, e.Line)
		if e.Kind == kindKeptShown {
			p.shown = append(p.shown, e.Line)
		}
	case kindRemoved, kindAnnotated:
		p.removed = append(p.removed, e)
		if e.Kind == kindRemoved || e.Duplicate {
			p.nRemoved++
		} else {
			p.nKept++
		}
	case kindRejected:
		p.rejected = append(p.rejected, e)
	default:
		return fmt.Errorf("line %d: unknown outcome kind %d", e.Line, e.Kind)
	}
	return nil
}

func (p *plan) isKept(line int64) bool {
	if line < p.base {
		return false
	}
	w := (line - p.base) / 64
	return w < int64(len(p.kept)) && p.kept[w]&(uint64(1)<<((line-p.base)%64)) != 0
}

func (p *plan) sort() {
	byLine := func(s []entry) {
		sort.SliceStable(s, func(i, j int) bool { return s[i].Line < s[j].Line })
	}
	byLine(p.removed)
	byLine(p.rejected)
	slices.Sort(p.shown)
}

// part describes the per-piece outputs written by writeRange.
type part struct {
	File                           string
	Base                           string // path prefix of the part files
	Kept, Removed, Rejected, Shown bool   // which part files exist
	NKept, NRemoved, NRejected     int64
	Seq, Pieces                    int // the piece's number in input order, of Pieces
}

// partBase names a piece's parts by a hash of its key (pieceKey): paths can be long and
// hold any character, and the final concatenation checks that no two pieces share a base.
func partBase(tempDir, key string) string {
	return files.Join(files.Join(tempDir, "parts"), fmt.Sprintf("%016x", xxhash.Sum64String(key)))
}

// lazyWriter creates its file on first write, so inputs without removed or rejected
// records cost no empty objects.
type lazyWriter struct {
	ctx  context.Context
	path string
	w    io.WriteCloser
}

func (l *lazyWriter) Write(p []byte) (int, error) {
	if l.w == nil {
		w, err := files.Create(l.ctx, l.path)
		if err != nil {
			return 0, err
		}
		l.w = w
	}
	return l.w.Write(p)
}

func (l *lazyWriter) close() (bool, error) {
	if l.w == nil {
		return false, nil
	}
	return true, l.w.Close()
}

// writePart re-reads one input file and writes its kept, removed and rejected lines, in
// line order, to part files under tempDir. It fails loudly when the outcomes do not match
// the file line for line (a lost, doubled or conflicting record, or a file changed since
// it was read): silently dropping a record is the one thing the sink must never do.
//
// annotate, when not empty, is the --mode annotate field prefix: the records, all listed
// as kindAnnotated entries, are written with their cluster fields to the kept part.
//
// ext is appended to the kept and removed parts' names: a compression's extension
// (layout.Ext) compresses them, for the sharded layout.
// limit is the record size limit the file was read with (source.Config.MaxRecordBytes): the
// lines it rejected as too long are read past again, not held.
func writePart(ctx context.Context, tempDir, format, annotate, ext, file string, p *plan, limit int64) (part, error) {
	return writeRange(ctx, tempDir, format, annotate, ext, source.Range{File: file, End: -1}, p, limit)
}

// writeRange is writePart for one piece: a whole file, or a range of a split file
// (source.RangeLines), whose outcomes p holds.
func writeRange(ctx context.Context, tempDir, format, annotate, ext string, r source.Range, p *plan, limit int64) (part, error) {
	file := r.File
	pt := part{File: file, Base: partBase(tempDir, pieceKey(r))}
	ff, err := source.FileFormat(file, format)
	if err != nil {
		return pt, err
	}
	p.sort()
	kept := &lazyWriter{ctx: ctx, path: pt.Base + ".kept" + ext}
	removed := &lazyWriter{ctx: ctx, path: pt.Base + ".removed" + ext}
	rejected := &lazyWriter{ctx: ctx, path: pt.Base + ".rejected"}
	shown := &lazyWriter{ctx: ctx, path: pt.Base + ".shown"}
	var rbuf []byte
	writeRejected := func(e entry, rec []byte) error {
		rbuf = rejectedLine(rbuf[:0], file, e.Line, e.Reason, rec)
		pt.NRejected++
		_, err := rejected.Write(rbuf)
		return err
	}
	switch whole, werr := rejectedWhole(p); {
	case werr != nil:
		err = werr
	case whole:
		err = writeRejected(p.rejected[0], nil)
	case ff == source.FormatParquet:
		err = routeParquet(ctx, file, annotate, p, kept, removed, writeRejected, &pt)
	default:
		err = route(ctx, r, ff, annotate, p, kept, removed, shown, writeRejected, &pt, limit)
	}
	var cerr error
	for _, c := range []struct {
		w  *lazyWriter
		ok *bool
	}{{kept, &pt.Kept}, {removed, &pt.Removed}, {rejected, &pt.Rejected}, {shown, &pt.Shown}} {
		var e error
		*c.ok, e = c.w.close()
		cerr = errors.Join(cerr, e)
	}
	if err == nil {
		err = cerr
	}
	if err != nil {
		return pt, fmt.Errorf("write outputs for %s: %w", file, err)
	}
	return pt, nil
}

// route re-reads a JSONL or text file, or the range r of one, and writes each line to
// kept or removed, or through writeRejected, by its outcome. The caller has handled a
// file rejected whole. A JSONL file's kept records that the report may show are also
// copied to shown (ReportTexts).
func route(ctx context.Context, r source.Range, format, annotate string, p *plan, kept, removed, shown io.Writer, writeRejected func(entry, []byte) error, pt *part, limit int64) error {
	var buf []byte
	names := AnnotatedFields(annotate)
	file := r.File

	next, stop, err := openLines(ctx, r, limit)
	if err != nil {
		return err
	}
	defer stop()
	ri, rj, si := 0, 0, 0
	last := p.base
	for {
		line, n, rerr := next()
		if rerr == io.EOF {
			break
		}
		var long *textfile.LongLineError
		if errors.As(rerr, &long) {
			// The start of a line the reader rejected as too long: its rejection shows it.
			if k := p.isKept(n); k || (ri < len(p.removed) && p.removed[ri].Line == n) {
				return fmt.Errorf("line %d: a record over the size limit has a decision", n)
			}
			rerr = nil
		}
		last = n
		k := p.isKept(n)
		r := ri < len(p.removed) && p.removed[ri].Line == n
		j := rj < len(p.rejected) && p.rejected[rj].Line == n
		switch {
		case rerr != nil && !j:
			return fmt.Errorf("re-read failed at line %d, where the reader did not fail: %w", n, rerr)
		case !k && !r && !j:
			return fmt.Errorf("line %d: no decision and no rejection (a record was lost)", n)
		case (k && r) || (k && j) || (r && j):
			return fmt.Errorf("line %d: more than one outcome", n)
		}
		rec := textfile.Record(line, n)
		switch {
		case k:
			// The line's own bytes (a byte order mark on line 1 too: parsing skips it, the
			// output keeps the input's bytes) and line ending; an unterminated last line
			// gets '\n' so the next file's records start on their own line.
			// Written as two pieces: kept's writer buffers them, so gathering them in buf
			// first would copy every kept byte twice.
			content := textfile.Content(line)
			end := line[len(content):]
			if len(end) == 0 {
				end = []byte{'\n'}
			}
			pt.NKept++
			if _, err := kept.Write(content); err != nil {
				return err
			}
			if _, err := kept.Write(end); err != nil {
				return err
			}
			if si < len(p.shown) && p.shown[si] == n {
				si++
				if format == source.FormatJSONL {
					if _, err := shown.Write(rec); err != nil {
						return err
					}
					if _, err := shown.Write(end); err != nil {
						return err
					}
				}
			}
		case r && p.removed[ri].Kind == kindAnnotated:
			e := p.removed[ri]
			ri++
			if format == source.FormatJSONL {
				if buf, err = annotatedJSON(buf[:0], rec, line[len(textfile.Content(line)):], e, names); err != nil {
					return err
				}
			} else {
				buf = annotatedText(buf[:0], rec, e, names)
			}
			countAnnotated(pt, e)
			if _, err := kept.Write(buf); err != nil {
				return err
			}
		case r:
			e := p.removed[ri]
			ri++
			if format == source.FormatJSONL {
				buf = removedLine(buf[:0], e, file, bytes.TrimSpace(rec), true)
			} else {
				buf = removedLine(buf[:0], e, file, rec, false)
			}
			pt.NRemoved++
			if _, err := removed.Write(buf); err != nil {
				return err
			}
		case j:
			e := p.rejected[rj]
			rj++
			if err := writeRejected(e, rec); err != nil {
				return err
			}
			if strings.HasPrefix(e.Reason, source.ReadErrorPrefix) {
				// The reader stopped here; so does the re-read.
				if ri < len(p.removed) || rj < len(p.rejected) || p.maxKept > n {
					return fmt.Errorf("outcomes after line %d, where the reader stopped", n)
				}
				return nil
			}
		}
		if (ri < len(p.removed) && p.removed[ri].Line <= n) || (rj < len(p.rejected) && p.rejected[rj].Line <= n) {
			return fmt.Errorf("line %d: more than one outcome", n)
		}
	}
	if ri < len(p.removed) || rj < len(p.rejected) || p.maxKept > last {
		return fmt.Errorf("outcomes for lines after the last line (%d): was the file changed?", last)
	}
	return nil
}

// openLines opens the lines of piece r as the source read them: the whole file, or the
// range of a split one.
func openLines(ctx context.Context, r source.Range, limit int64) (next func() ([]byte, int64, error), stop func(), err error) {
	if !r.Whole() {
		next, stop = source.RangeLines(ctx, r, source.Config{MaxRecordBytes: limit})
		return next, stop, nil
	}
	rc, err := files.Open(ctx, r.File)
	if err != nil {
		return nil, nil, err
	}
	return source.Lines(rc, limit).Next, func() { rc.Close() }, nil
}

// rejectedWhole reports a Line 0 rejection: the reader could not open (or use) the file,
// so it read nothing from it, and nothing else may be said about its lines.
func rejectedWhole(p *plan) (bool, error) {
	if len(p.rejected) == 0 || p.rejected[0].Line != 0 {
		return false, nil
	}
	if len(p.rejected) > 1 || len(p.removed) > 0 || p.maxKept > 0 {
		return true, errors.New("outcomes for lines of a file the reader rejected whole")
	}
	return true, nil
}

// output is a record output and which of a file's parts hold its lines.
type output struct {
	name string
	has  func(part) bool
	ext  string
}

// concat joins the parts, in input order (part.Seq), into the final outputs under tempDir
// (files.Concat: on local disk the first part is moved into place and the others are
// appended to it), deleting each part once joined. Every output is created even when
// empty, so the commit always has all of them to move. When sharded, kept (annotated)
// and removed are in parts already (writeShardFn), and only rejected and the report's
// texts are joined. like is an input whose schema a Parquet output without rows gets.
func concat(ctx context.Context, tempDir, format string, annotate, sharded bool, parts []part, like string) error {
	sortParts(parts)
	bases := map[string]string{}
	for i, pt := range parts {
		if i > 0 && pt.File == parts[i-1].File && pt.Seq == parts[i-1].Seq {
			return fmt.Errorf("concatenate outputs: a piece of %s written twice", pt.File)
		}
		if other, ok := bases[pt.Base]; ok {
			return fmt.Errorf("concatenate outputs: %s and %s hash to the same part name", other, pt.File)
		}
		bases[pt.Base] = pt.File
	}
	outs := []output{
		{KeptName(format), func(p part) bool { return p.Kept }, ".kept"},
		{Removed, func(p part) bool { return p.Removed }, ".removed"},
		{Rejected, func(p part) bool { return p.Rejected }, ".rejected"},
	}
	if annotate {
		outs = []output{{AnnotatedName(format), outs[0].has, outs[0].ext}, outs[2]}
	} else if format == source.FormatJSONL {
		outs = append(outs, output{ReportTexts, func(p part) bool { return p.Shown }, ".shown"})
	}
	if sharded {
		outs = slices.DeleteFunc(outs, func(o output) bool { return o.ext == ".kept" || o.ext == ".removed" })
	} else if format == source.FormatParquet {
		// Parquet files cannot be joined byte-wise: their row groups are merged instead.
		if err := mergeParquet(ctx, files.Join(tempDir, outs[0].name), parts, like); err != nil {
			return err
		}
		outs = outs[1:]
	}
	for _, out := range outs {
		if err := concatOne(ctx, files.Join(tempDir, out.name), parts, out.has, out.ext); err != nil {
			return err
		}
	}
	if err := files.RemoveAll(ctx, files.Join(tempDir, "parts")); err != nil {
		return fmt.Errorf("concatenate outputs: remove parts: %w", err)
	}
	return nil
}

// sortParts puts parts in input order: by piece number, then file name.
func sortParts(parts []part) {
	sort.Slice(parts, func(i, j int) bool {
		if parts[i].Seq != parts[j].Seq {
			return parts[i].Seq < parts[j].Seq
		}
		return parts[i].File < parts[j].File
	})
}

func concatOne(ctx context.Context, dst string, parts []part, has func(part) bool, ext string) error {
	var srcs []string
	for _, pt := range parts {
		if has(pt) {
			srcs = append(srcs, pt.Base+ext)
		}
	}
	return files.Concat(ctx, dst, srcs)
}
