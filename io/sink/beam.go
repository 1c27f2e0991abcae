package sink

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/neardup/neardup/internal/once"
	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/io/layout"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/record"
)

func init() {
	register.DoFn3x0[record.Decisions, func(*source.Range) bool, func(string, entryBatch)](&decisionsByFileFn{})
	register.DoFn3x0[record.Rejected, func(*source.Range) bool, func(string, entryBatch)](&rejectedByFileFn{})
	register.Emitter2[string, entryBatch]()
	register.Iter1[source.Range]()
	register.Function2x0(splitRanges)
	register.Emitter1[source.Range]()
	register.DoFn6x1[context.Context, string, func(*entryBatch) bool, func(*source.Range) bool, func(part), func(tally.Count), error](&writePartFn{})
	register.DoFn2x0[record.Decisions, func(string, entryBatch)](&decisionsWholeFn{})
	register.DoFn2x0[record.Rejected, func(string, entryBatch)](&rejectedWholeFn{})
	register.DoFn5x1[context.Context, string, func(*entryBatch) bool, func(part), func(tally.Count), error](&writeWholeFn{})
	register.Emitter1[part]()
	register.DoFn4x1[context.Context, int, func(*[]byte) bool, func(*part) bool, error](&concatFn{})
	register.Iter1[entryBatch]()
	once.Register[part]()
}

// Write writes kept, removed and rejected outputs under cfg.TempDir from the pipeline's
// decisions, PCollection<record.Decisions> (batches, one Decision per Doc), and the
// reader's rejected records, PCollection<record.Rejected>; ranges, PCollection<source.Range>,
// are the numbered ranges the inputs were read in (source.ReadStages). It returns the
// lines written to each output as a PCollection<tally.Count> (output_kept,
// output_removed, output_rejected), whose sum equals the inputs' line count, and the
// decisions it was given (kept, removed; in annotate mode, duplicate or not), which the
// written lines must match.
//
// Outcomes are grouped by piece of input (pieces: a read range of a split file, else a
// whole file); each piece is re-read once, streaming, and its lines are routed to
// per-piece part files (pieces are written in parallel across workers, and only the
// piece's small line → outcome table is held in memory). One final step, run once after
// every part exists, concatenates the parts in input order, so each output is ordered by
// (file, line) and identical from run to run whatever the runner or bundling.
func Write(s beam.Scope, decisions, rejected, ranges beam.PCollection, cfg WriteConfig) (counts beam.PCollection) {
	s = s.Scope("sink.Write")
	if cfg.TempDir == "" {
		panic("sink.Write: WriteConfig.TempDir is empty")
	}
	switch cfg.Format {
	case source.FormatJSONL, source.FormatText, source.FormatParquet:
	default:
		panic(fmt.Sprintf("sink.Write: WriteConfig.Format is %q; want the resolved format, %q, %q or %q (source.OutputFormat)",
			cfg.Format, source.FormatJSONL, source.FormatText, source.FormatParquet))
	}
	files := slices.Sorted(slices.Values(cfg.Files))
	ext := ""
	if cfg.Shards > 0 && cfg.Format != source.FormatParquet {
		ext = layout.Ext(cfg.Compress)
	}
	dFn := &decisionsByFileFn{Annotate: cfg.Annotate != "", Files: files}
	rFn := &rejectedByFileFn{Files: files}
	wFn := &writePartFn{TempDir: cfg.TempDir, Format: cfg.Format, Annotate: cfg.Annotate, Ext: ext, MaxRecordBytes: cfg.MaxRecordBytes, Files: files}
	var parts beam.PCollection
	if cfg.Shards > 0 {
		side := beam.SideInput{Input: beam.ParDo(s, splitRanges, ranges)}
		d := beam.ParDo(s, dFn, decisions, side)
		r := beam.ParDo(s, rFn, rejected, side)
		parts, counts = beam.ParDo2(s, wFn, beam.GroupByKey(s, beam.Flatten(s, d, r)), side)
	} else {
		// The single layout joins the pieces into one file whatever they are, so it keeps
		// whole files as pieces and leaves ranges unused: a side input, or any step more
		// on ranges, costs the embedded runner CPU on every run.
		d := beam.ParDo(s, &decisionsWholeFn{*dFn}, decisions)
		r := beam.ParDo(s, &rejectedWholeFn{*rFn}, rejected)
		parts, counts = beam.ParDo2(s, &writeWholeFn{*wFn}, beam.GroupByKey(s, beam.Flatten(s, d, r)))
	}
	fin := &concatFn{TempDir: cfg.TempDir, Format: cfg.Format, Annotate: cfg.Annotate != ""}
	if cfg.Format == source.FormatParquet && cfg.Annotate == "" && len(files) > 0 {
		// The inputs share one schema (parquetfile.CheckSchemas).
		fin.Like = files[0]
	}
	if cfg.Shards > 0 {
		fin.Shard = &writeShardFn{TempDir: cfg.TempDir, Format: cfg.Format, Compress: cfg.Compress, Shards: cfg.Shards, Annotate: cfg.Annotate != "", Like: fin.Like}
		parts = beam.ParDo(s, fin.Shard, beam.GroupByKey(s, beam.ParDo(s, &shardOfFn{Shards: cfg.Shards}, parts)))
	}
	// once.Group rather than a GroupByKey of the parts: it runs exactly once even when there
	// are no parts at all (empty input), so the outputs always exist. It gathers one small
	// record per piece, never per record.
	beam.ParDo0(s, fin, once.Group[part](s, parts))
	return counts
}

// splitRanges passes on the byte ranges of split files, the only ranges pieces needs:
// they are about one per DefaultChunkBytes of input, where the files may be millions.
func splitRanges(r source.Range, emit func(source.Range)) {
	if !r.Whole() && !r.RowGroups {
		emit(r)
	}
}

// entryBatch is some of one piece's outcomes. The grouping by piece moves one element
// per piece and bundle (or per batchEntries outcomes), not one per record: the runner's
// cost is per element, and Prism holds a shuffle's elements in memory.
type entryBatch struct{ Items []entry }

// batchEntries outcomes make one entryBatch at most.
const batchEntries = 4096

// byPiece gathers a bundle's outcomes by piece (pieces.key).
type byPiece struct {
	table *pieces // built from the side input once: it is the same for every element
	batch map[string][]entry
}

// add adds the outcome e of a line of file; inputs are the sorted inputs and ranges
// their read ranges.
func (b *byPiece) add(inputs []string, ranges func(*source.Range) bool, file string, e entry, emit func(string, entryBatch)) {
	if b.table == nil {
		b.table = newPieces(inputs, ranges)
	}
	if b.batch == nil {
		b.batch = map[string][]entry{}
	}
	key := b.table.key(file, e.Line)
	items := append(b.batch[key], e)
	if len(items) >= batchEntries {
		emit(key, entryBatch{items})
		items = nil
	}
	b.batch[key] = items
}

func (b *byPiece) flush(emit func(string, entryBatch)) {
	for _, key := range slices.Sorted(maps.Keys(b.batch)) {
		if items := b.batch[key]; len(items) > 0 {
			emit(key, entryBatch{items})
		}
	}
	b.batch = nil
}

// decisionsByFileFn keys the documents' outcomes by piece, in batches.
type decisionsByFileFn struct {
	Annotate bool
	Files    []string // the inputs, sorted

	pieces byPiece
}

func (f *decisionsByFileFn) ProcessElement(b record.Decisions, ranges func(*source.Range) bool, emit func(string, entryBatch)) {
	for _, d := range b.Items {
		e := fromDecision(d)
		if f.Annotate {
			e = fromAnnotated(d)
		}
		f.pieces.add(f.Files, ranges, d.File, e, emit)
	}
}

func (f *decisionsByFileFn) FinishBundle(_ func(*source.Range) bool, emit func(string, entryBatch)) {
	f.pieces.flush(emit)
}

// rejectedByFileFn keys the rejected records by piece, in batches.
type rejectedByFileFn struct {
	Files []string // the inputs, sorted

	pieces byPiece
}

func (f *rejectedByFileFn) ProcessElement(r record.Rejected, ranges func(*source.Range) bool, emit func(string, entryBatch)) {
	f.pieces.add(f.Files, ranges, r.File, fromRejected(r), emit)
}

func (f *rejectedByFileFn) FinishBundle(_ func(*source.Range) bool, emit func(string, entryBatch)) {
	f.pieces.flush(emit)
}

// writePartFn re-reads one piece and writes its part files.
type writePartFn struct {
	TempDir, Format string
	Ext             string // the kept and removed parts' compression extension
	Annotate        string // the --mode annotate field prefix; empty in dedup mode
	MaxRecordBytes  int64  // the inputs' record size limit
	Files           []string

	table  *pieces
	counts tally.Bundle
}

func (f *writePartFn) ProcessElement(ctx context.Context, key string, batches func(*entryBatch) bool, ranges func(*source.Range) bool, emit func(part), _ func(tally.Count)) error {
	if f.table == nil {
		f.table = newPieces(f.Files, ranges)
	}
	file, r, seq := f.table.piece(key)
	if seq < 0 {
		return fmt.Errorf("write outputs: %s is not among the inputs", file)
	}
	p := plan{base: max(r.First-1, 0)}
	var b entryBatch
	for batches(&b) {
		for _, e := range b.Items {
			if err := p.add(e); err != nil {
				return fmt.Errorf("outcomes for %s: %w", file, err)
			}
		}
	}
	pt, err := writeRange(ctx, f.TempDir, f.Format, f.Annotate, f.Ext, r, &p, f.MaxRecordBytes)
	if err != nil {
		return err
	}
	pt.Seq, pt.Pieces = seq, f.table.total
	f.counts.Add("output_kept", pt.NKept)
	f.counts.Add("output_removed", pt.NRemoved)
	f.counts.Add("output_rejected", pt.NRejected)
	f.counts.Add("kept", p.nKept)
	f.counts.Add("removed", p.nRemoved)
	emit(pt)
	return nil
}

func (f *writePartFn) FinishBundle(_ func(*source.Range) bool, _ func(part), count func(tally.Count)) {
	f.counts.Emit(count)
}

type concatFn struct {
	TempDir, Format string
	Annotate        bool
	// Shard, in the sharded layout, writes the empty parts of shards no piece fell in.
	Shard *writeShardFn
	// Like is an input whose schema kept.parquet gets when no row is kept.
	Like string
}

func (f *concatFn) ProcessElement(ctx context.Context, _ int, _ func(*[]byte) bool, parts func(*part) bool) error {
	var all []part
	var p part
	for parts(&p) {
		all = append(all, p)
	}
	if err := concat(ctx, f.TempDir, f.Format, f.Annotate, f.Shard != nil, all, f.Like); err != nil {
		return err
	}
	if f.Shard != nil {
		if err := f.Shard.emptyShards(ctx, all); err != nil {
			return err
		}
	}
	return nil
}

// noRanges is an empty side input: every file is one piece.
func noRanges(*source.Range) bool { return false }

// decisionsWholeFn is decisionsByFileFn with every file one piece.
type decisionsWholeFn struct{ F decisionsByFileFn }

func (f *decisionsWholeFn) ProcessElement(b record.Decisions, emit func(string, entryBatch)) {
	f.F.ProcessElement(b, noRanges, emit)
}

func (f *decisionsWholeFn) FinishBundle(emit func(string, entryBatch)) {
	f.F.FinishBundle(noRanges, emit)
}

// rejectedWholeFn is rejectedByFileFn with every file one piece.
type rejectedWholeFn struct{ F rejectedByFileFn }

func (f *rejectedWholeFn) ProcessElement(r record.Rejected, emit func(string, entryBatch)) {
	f.F.ProcessElement(r, noRanges, emit)
}

func (f *rejectedWholeFn) FinishBundle(emit func(string, entryBatch)) {
	f.F.FinishBundle(noRanges, emit)
}

// writeWholeFn is writePartFn with every file one piece.
type writeWholeFn struct{ F writePartFn }

func (f *writeWholeFn) ProcessElement(ctx context.Context, key string, batches func(*entryBatch) bool, emit func(part), count func(tally.Count)) error {
	return f.F.ProcessElement(ctx, key, batches, noRanges, emit, count)
}

func (f *writeWholeFn) FinishBundle(emit func(part), count func(tally.Count)) {
	f.F.FinishBundle(noRanges, emit, count)
}
