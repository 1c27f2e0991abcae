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
	register.DoFn2x0[record.Decisions, func(string, entryBatch)](&decisionsByFileFn{})
	register.DoFn2x0[record.Rejected, func(string, entryBatch)](&rejectedByFileFn{})
	register.Emitter2[string, entryBatch]()
	register.DoFn5x1[context.Context, string, func(*entryBatch) bool, func(part), func(tally.Count), error](&writePartFn{})
	register.Emitter1[part]()
	register.DoFn5x1[context.Context, int, func(*[]byte) bool, func(*part) bool, func(int), error](&concatFn{})
	register.Iter1[entryBatch]()
	once.Register[part]()
}

// Write writes kept, removed and rejected outputs under cfg.TempDir from the pipeline's
// decisions, PCollection<record.Decisions> (batches, one Decision per Doc), and the
// reader's rejected records, PCollection<record.Rejected>. It returns the lines written to
// each output as a PCollection<tally.Count> (output_kept, output_removed,
// output_rejected), whose sum equals the inputs' line count.
//
// Outcomes are grouped by input file; each file is re-read once, streaming, and its lines
// are routed to per-file part files (files are written in parallel across workers, and only
// the file's small line → outcome table is held in memory). One final step, run once after
// every part exists, concatenates the parts in sorted file order, so each output is ordered
// by (file, line) and identical from run to run whatever the runner or bundling.
func Write(s beam.Scope, decisions, rejected beam.PCollection, cfg WriteConfig) (counts beam.PCollection) {
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
	d := beam.ParDo(s, &decisionsByFileFn{Annotate: cfg.Annotate != ""}, decisions)
	r := beam.ParDo(s, &rejectedByFileFn{}, rejected)
	byFile := beam.GroupByKey(s, beam.Flatten(s, d, r))
	ext := ""
	if cfg.Shards > 0 && cfg.Format != source.FormatParquet {
		ext = layout.Ext(cfg.Compress)
	}
	parts, counts := beam.ParDo2(s, &writePartFn{TempDir: cfg.TempDir, Format: cfg.Format, Annotate: cfg.Annotate, Ext: ext, MaxRecordBytes: cfg.MaxRecordBytes}, byFile)
	files := slices.Sorted(slices.Values(cfg.Files))
	fin := &concatFn{TempDir: cfg.TempDir, Format: cfg.Format, Annotate: cfg.Annotate != ""}
	if cfg.Format == source.FormatParquet && cfg.Annotate == "" && len(files) > 0 {
		// The inputs share one schema (parquetfile.CheckSchemas).
		fin.Like = files[0]
	}
	if cfg.Shards > 0 {
		fin.Files = files
		fin.Shard = &writeShardFn{TempDir: cfg.TempDir, Format: cfg.Format, Compress: cfg.Compress, Shards: cfg.Shards, Annotate: cfg.Annotate != "", Like: fin.Like}
		parts = beam.ParDo(s, fin.Shard, beam.GroupByKey(s, beam.ParDo(s, &shardOfFn{Files: files, Shards: cfg.Shards}, parts)))
	}
	// once.Group rather than a GroupByKey of the parts: it runs exactly once even when there
	// are no parts at all (empty input), so the outputs always exist. It gathers one small
	// record per input file, never per record.
	done := beam.ParDo(s, fin, once.Group[part](s, parts))
	once.End(s, done)
	return counts
}

// entryBatch is some of one input file's outcomes. The grouping by file moves one
// element per file and bundle (or per batchEntries outcomes), not one per record: the
// runner's cost is per element, and Prism holds a shuffle's elements in memory.
type entryBatch struct{ Items []entry }

// batchEntries outcomes make one entryBatch at most.
const batchEntries = 4096

// byFile gathers a bundle's outcomes by input file.
type byFile map[string][]entry

func (b *byFile) add(file string, e entry, emit func(string, entryBatch)) {
	if *b == nil {
		*b = byFile{}
	}
	items := append((*b)[file], e)
	if len(items) >= batchEntries {
		emit(file, entryBatch{items})
		items = nil
	}
	(*b)[file] = items
}

func (b *byFile) flush(emit func(string, entryBatch)) {
	for _, file := range slices.Sorted(maps.Keys(*b)) {
		if items := (*b)[file]; len(items) > 0 {
			emit(file, entryBatch{items})
		}
	}
	*b = nil
}

// decisionsByFileFn keys the documents' outcomes by input file, in batches.
type decisionsByFileFn struct {
	Annotate bool
	files    byFile
}

func (f *decisionsByFileFn) ProcessElement(b record.Decisions, emit func(string, entryBatch)) {
	for _, d := range b.Items {
		e := fromDecision(d)
		if f.Annotate {
			e = fromAnnotated(d)
		}
		f.files.add(d.File, e, emit)
	}
}

func (f *decisionsByFileFn) FinishBundle(emit func(string, entryBatch)) { f.files.flush(emit) }

// rejectedByFileFn keys the rejected records by input file, in batches.
type rejectedByFileFn struct{ files byFile }

func (f *rejectedByFileFn) ProcessElement(r record.Rejected, emit func(string, entryBatch)) {
	f.files.add(r.File, fromRejected(r), emit)
}

func (f *rejectedByFileFn) FinishBundle(emit func(string, entryBatch)) { f.files.flush(emit) }

type writePartFn struct {
	TempDir, Format string
	Ext             string // the kept and removed parts' compression extension
	Annotate        string // the --mode annotate field prefix; empty in dedup mode
	MaxRecordBytes  int64  // the inputs' record size limit

	counts tally.Bundle
}

func (f *writePartFn) ProcessElement(ctx context.Context, file string, batches func(*entryBatch) bool, emit func(part), _ func(tally.Count)) error {
	var p plan
	var b entryBatch
	for batches(&b) {
		for _, e := range b.Items {
			if err := p.add(e); err != nil {
				return fmt.Errorf("outcomes for %s: %w", file, err)
			}
		}
	}
	pt, err := writePart(ctx, f.TempDir, f.Format, f.Annotate, f.Ext, file, &p, f.MaxRecordBytes)
	if err != nil {
		return err
	}
	f.counts.Add("output_kept", pt.NKept)
	f.counts.Add("output_removed", pt.NRemoved)
	f.counts.Add("output_rejected", pt.NRejected)
	emit(pt)
	return nil
}

func (f *writePartFn) FinishBundle(_ func(part), count func(tally.Count)) { f.counts.Emit(count) }

type concatFn struct {
	TempDir, Format string
	Annotate        bool
	// Shard, in the sharded layout, writes the empty parts of shards no file fell in;
	// Files are the sorted inputs.
	Shard *writeShardFn
	Files []string
	// Like is an input whose schema kept.parquet gets when no row is kept.
	Like string
}

func (f *concatFn) ProcessElement(ctx context.Context, _ int, _ func(*[]byte) bool, parts func(*part) bool, done func(int)) error {
	var all []part
	var p part
	for parts(&p) {
		all = append(all, p)
	}
	if err := concat(ctx, f.TempDir, f.Format, f.Annotate, f.Shard != nil, all, f.Like); err != nil {
		return err
	}
	if f.Shard != nil {
		if err := f.Shard.emptyShards(ctx, f.Files, all); err != nil {
			return err
		}
	}
	done(len(all))
	return nil
}
