package source

import (
	"context"
	"reflect"
	"runtime"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/internal/ordered"
	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/record"
)

func init() {
	beam.RegisterType(reflect.TypeOf(Range{}))
	register.DoFn4x0[context.Context, string, func(Range), func(tally.Count)](&splitFn{})
	register.DoFn3x0[context.Context, Range, func(string, Range)](&countFn{})
	register.Function3x0(numberRanges)
	register.DoFn5x1[context.Context, Range, func(record.Doc), func(record.Rejected), func(tally.Count), error](&readFn{})
	register.Emitter1[Range]()
	register.Emitter2[string, Range]()
	register.Iter1[Range]()
	register.Emitter1[record.Doc]()
	register.Emitter1[record.Rejected]()
}

// Read reads files (the output of Files) into Docs and Rejected records, as
// PCollection<record.Doc> and PCollection<record.Rejected>, with their counts as a
// PCollection<tally.Count> (documents_read, records_rejected, invalid_utf8_replaced,
// damaged_files, input_ranges, unsplittable_files). A large input is cut into
// ranges of about cfg.ChunkBytes (DefaultChunkBytes when 0): line-aligned byte ranges of
// an uncompressed JSONL or text file, runs of row groups of a local Parquet file; so a
// runner that spreads elements over workers (Dataflow, Flink, Spark) reads one huge file
// on many. Every other file is one range. A split range cannot know its first line number
// by itself, so a first pass counts each range's lines (a newline scan; a Parquet range's
// rows are in the footer, but its columns are decoded to find damage, which must end
// the file's records where a whole read would), the counts of one file meet by file name,
// and each range leaves with its first line number: ids, line numbers, rejections and
// damage are those of a whole read. The numbered ranges are shuffled before reading.
func Read(s beam.Scope, fileList []string, cfg Config) (docs, rejected, counts beam.PCollection) {
	r := ReadStages(s, fileList, cfg)
	return r.Docs, r.Rejected, beam.Flatten(s, r.SplitCounts, r.Counts)
}

// Outputs are what ReadStages makes of the inputs: Docs, Rejected and Counts come out of
// the stage that reads the records, SplitCounts (input_ranges, unsplittable_files) out
// of an earlier one; Ranges are the ranges the files were read in, numbered, as a
// PCollection<Range>, so that a step that re-reads the inputs can follow the same pieces.
type Outputs struct {
	Docs, Rejected, Counts, SplitCounts, Ranges beam.PCollection
}

// ReadStages is Read with the counts of its two stages apart, so that a caller can fuse
// what it does with the reading stage's outputs into that stage, and with the ranges.
func ReadStages(s beam.Scope, fileList []string, cfg Config) Outputs {
	s = s.Scope("source.Read")
	cfg = cfg.WithDefaults()
	chunk := cfg.ChunkBytes
	if chunk == 0 {
		chunk = DefaultChunkBytes
	}
	split, splitCounts := beam.ParDo2(s, &splitFn{Format: cfg.Format, IDField: cfg.IDField, TextField: cfg.TextField, ChunkBytes: chunk}, beam.CreateList(s, fileList))
	counted := beam.ParDo(s, &countFn{IDField: cfg.IDField, TextField: cfg.TextField, MaxRecordBytes: cfg.MaxRecordBytes}, beam.Reshuffle(s, split))
	ranges := beam.ParDo(s, numberRanges, beam.GroupByKey(s, counted))
	docs, rejected, readCounts := beam.ParDo3(s, &readFn{Format: cfg.Format, IDField: cfg.IDField, TextField: cfg.TextField, FailOnDamage: cfg.FailOnDamage, MaxRecordBytes: cfg.MaxRecordBytes},
		beam.Reshuffle(s, ranges))
	return Outputs{Docs: docs, Rejected: rejected, Counts: readCounts, SplitCounts: splitCounts, Ranges: ranges}
}

// splitFn cuts one file into its ranges.
type splitFn struct {
	Format, IDField, TextField string
	ChunkBytes                 int64

	counts tally.Bundle
}

func (f *splitFn) ProcessElement(ctx context.Context, file string, emit func(Range), _ func(tally.Count)) {
	rs := Split(ctx, file, Config{Format: f.Format, IDField: f.IDField, TextField: f.TextField}, f.ChunkBytes)
	if _, err := FileFormat(file, f.Format); err == nil && files.Compression(file) != "" {
		// A compressed stream can only be read from its start, by one worker.
		f.counts.Add("unsplittable_files", 1)
	}
	f.counts.Add("input_ranges", int64(len(rs)))
	for _, r := range rs {
		emit(r)
	}
}

func (f *splitFn) FinishBundle(_ func(Range), count func(tally.Count)) { f.counts.Emit(count) }

// countFn keys a range by its file and, for a split range, counts the lines it owns and
// finds damage (CountRange). Prism hands it every range in one bundle, so the ranges are
// counted on a goroutine per core and emitted in input order.
type countFn struct {
	IDField, TextField string
	MaxRecordBytes     int64

	ctx  context.Context
	pool *ordered.Pool[Range, Range]
}

func (f *countFn) Setup() {
	f.pool = ordered.New(runtime.GOMAXPROCS(0), 1, func() func(Range) Range {
		return func(r Range) Range { return CountRange(f.ctx, r, f.config()) }
	})
}

func (f *countFn) config() Config {
	return Config{IDField: f.IDField, TextField: f.TextField, MaxRecordBytes: f.MaxRecordBytes}
}

func (f *countFn) Teardown() { f.pool.Close() }

func (f *countFn) StartBundle(ctx context.Context, _ func(string, Range)) { f.ctx = ctx }

func (f *countFn) ProcessElement(_ context.Context, r Range, emit func(string, Range)) {
	f.pool.Add(r, func(r Range) { emit(r.File, r) })
}

func (f *countFn) FinishBundle(_ context.Context, emit func(string, Range)) {
	f.pool.Flush(func(r Range) { emit(r.File, r) })
}

// numberRanges gives each range of one file its first line number (NumberRanges).
func numberRanges(_ string, iter func(*Range) bool, emit func(Range)) {
	var rs []Range
	var r Range
	for iter(&r) {
		rs = append(rs, r)
	}
	for _, r := range NumberRanges(rs) {
		emit(r)
	}
}

type readFn struct {
	Format, IDField, TextField string
	FailOnDamage               bool
	MaxRecordBytes             int64

	counts tally.Bundle
}

func (f *readFn) ProcessElement(ctx context.Context, r Range, doc func(record.Doc), rej func(record.Rejected), _ func(tally.Count)) error {
	cfg := Config{Format: f.Format, IDField: f.IDField, TextField: f.TextField, MaxRecordBytes: f.MaxRecordBytes}
	st := ReadRange(ctx, r, cfg, doc, rej)
	f.counts.Add("documents_read", st.Docs)
	f.counts.Add("records_rejected", st.Rejected)
	f.counts.Add("invalid_utf8_replaced", st.InvalidUTF8)
	if st.Damaged != nil {
		if f.FailOnDamage {
			return st.Damaged
		}
		f.counts.Add("damaged_files", 1)
	}
	return nil
}

func (f *readFn) FinishBundle(_ func(record.Doc), _ func(record.Rejected), count func(tally.Count)) {
	f.counts.Emit(count)
}
