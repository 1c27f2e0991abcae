package source

import (
	"context"
	"fmt"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/neardup/neardup/record"
)

// Counters in the "neardup" namespace.
var (
	documentsRead       = beam.NewCounter("neardup", "documents_read")
	recordsRejected     = beam.NewCounter("neardup", "records_rejected")
	invalidUTF8Replaced = beam.NewCounter("neardup", "invalid_utf8_replaced")
	inputRanges         = beam.NewCounter("neardup", "input_ranges")
	unsplittableFiles   = beam.NewCounter("neardup", "unsplittable_files")
	damagedFiles        = beam.NewCounter("neardup", "damaged_files")
)

func init() {
	beam.RegisterType(reflect.TypeOf(Range{}))
	beam.RegisterType(reflect.TypeOf(rangeLines{}))
	register.DoFn3x0[context.Context, string, func(Range)](&splitFn{})
	register.Function3x1(countRange)
	register.DoFn5x1[context.Context, Range, func(*rangeLines) bool, func(record.Doc), func(record.Rejected), error](&readFn{})
	register.Emitter1[Range]()
	register.Emitter1[rangeLines]()
	register.Iter1[rangeLines]()
	register.Emitter1[record.Doc]()
	register.Emitter1[record.Rejected]()
}

// Read reads files (the output of Files) into Docs and Rejected records, as
// PCollection<record.Doc> and PCollection<record.Rejected>. A large uncompressed JSONL or
// text file is cut into line-aligned byte ranges of cfg.ChunkBytes (DefaultChunkBytes when
// 0), so that a runner that spreads elements over workers (Dataflow, Flink, Spark) reads
// one huge file on many; every other file is one range. The ranges are shuffled before
// reading. A split range cannot know its first line number by itself, so a first pass
// counts each range's lines (a newline scan, far cheaper than parsing) and the reading
// pass takes the counts as a side input: ids and line numbers are those of a whole read.
func Read(s beam.Scope, fileList []string, cfg Config) (docs, rejected beam.PCollection) {
	s = s.Scope("source.Read")
	cfg = cfg.WithDefaults()
	chunk := cfg.ChunkBytes
	if chunk == 0 {
		chunk = DefaultChunkBytes
	}
	ranges := beam.Reshuffle(s, beam.ParDo(s, &splitFn{Format: cfg.Format, ChunkBytes: chunk}, beam.CreateList(s, fileList)))
	counts := beam.ParDo(s, countRange, ranges)
	return beam.ParDo2(s, &readFn{Format: cfg.Format, IDField: cfg.IDField, TextField: cfg.TextField, FailOnDamage: cfg.FailOnDamage},
		ranges, beam.SideInput{Input: counts})
}

// splitFn cuts one file into its ranges.
type splitFn struct {
	Format     string
	ChunkBytes int64
}

func (f *splitFn) ProcessElement(ctx context.Context, file string, emit func(Range)) {
	if Splittable(file, f.Format) {
		size, err := Size(ctx, file)
		if err != nil {
			// Read whole: the reader then rejects the file at line 0 with the open error.
			size = 0
		}
		rs := SplitFile(file, f.Format, size, f.ChunkBytes)
		for _, r := range rs {
			emit(r)
		}
		inputRanges.Inc(ctx, int64(len(rs)))
		return
	}
	if ff, err := FileFormat(file, f.Format); err == nil && ff != FormatParquet {
		// A compressed stream can only be read from its start, by one worker.
		unsplittableFiles.Inc(ctx, 1)
	}
	inputRanges.Inc(ctx, 1)
	emit(Range{File: file, End: -1})
}

// rangeLines is how many lines a split range owns.
type rangeLines struct {
	File  string
	Index int
	Lines int64
}

func countRange(ctx context.Context, r Range, emit func(rangeLines)) error {
	if r.Whole() {
		return nil
	}
	n, err := CountLines(ctx, r)
	if err != nil {
		return fmt.Errorf("count the lines of %s bytes %d-%d: %w", r.File, r.Start, r.End, err)
	}
	emit(rangeLines{File: r.File, Index: r.Index, Lines: n})
	return nil
}

type readFn struct {
	Format, IDField, TextField string
	FailOnDamage               bool
}

func (f *readFn) ProcessElement(ctx context.Context, r Range, counts func(*rangeLines) bool, doc func(record.Doc), rej func(record.Rejected)) error {
	cfg := Config{Format: f.Format, IDField: f.IDField, TextField: f.TextField}
	first := int64(1)
	if !r.Whole() {
		var c rangeLines
		for counts(&c) {
			if c.File == r.File && c.Index < r.Index {
				first += c.Lines
			}
		}
	}
	// Counters are added per range, not per record: per-record Inc would dominate the
	// cost of small records.
	st := ReadRange(ctx, r, first, cfg, doc, rej)
	documentsRead.Inc(ctx, st.Docs)
	recordsRejected.Inc(ctx, st.Rejected)
	invalidUTF8Replaced.Inc(ctx, st.InvalidUTF8)
	if st.Damaged != nil {
		if f.FailOnDamage {
			return st.Damaged
		}
		damagedFiles.Inc(ctx, 1)
	}
	return nil
}
