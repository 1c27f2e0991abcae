package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/query"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/pipeline"
)

// runIndex builds an index (`neardup index --input GLOB --output IDX`) or describes one
// (`neardup index --info IDX`). Beam's flags live on the global flag set, as for dedup.
func runIndex(args []string, stdout, stderr io.Writer) error {
	cfg := pipeline.DefaultConfig()
	fs := flag.CommandLine
	var inputs inputFlag
	info := fs.String("info", "", "print the manifest, counts and checksum status of the index at this path, and exit")
	compact := fs.String("compact", "", "merge the segments of the index at this path into one (a format 1 index is converted to format 2), commit it as a new generation, and exit")
	bits := fs.Int("shingle-bits", index.DefaultShingleBits, "--compact of a format 1 index: width of the stored shingle hashes, 1 to 64 (64: Jaccard exactly as dedup computes it; 32: within about 800 bytes per document, see docs/index.md)")
	indexFormat := fs.Int("index-format", 2, "2: one segment laid out for lookup (--shingle-bits wide hashes), built in this process, JSONL inputs; 1: Parquet shards of full hashes, built with the pipeline on any runner from any input format (convert with --compact)")
	fs.BoolFunc("segments", "same as --index-format 2, the default", func(string) error { *indexFormat = 2; return nil })
	shards := fs.Int("shards", index.DefaultShards, "--index-format 1: shard files of a new index (documents are spread by a hash of their id)")
	fs.Var(&inputs, "input", "input file or glob (local or gs://); repeatable; normally a dedup's kept output")
	fs.StringVar(&cfg.Output, "output", "", "the index directory to create (local or gs://)")
	fs.StringVar((*string)(&cfg.Format), "format", string(cfg.Format), "input format: auto (by extension), jsonl, text or parquet")
	fs.StringVar(&cfg.IDField, "id-field", cfg.IDField, "JSON field holding the document id (missing: FILE:LINE is used)")
	fs.StringVar(&cfg.TextField, "text-field", cfg.TextField, "JSON field holding the text")
	methodFlags(fs, &cfg)
	lshFlags(fs, &cfg)
	maxRecord := recordFlags(fs, &cfg)
	fs.BoolVar(&cfg.Quiet, "quiet", false, "no progress line on stderr")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: neardup index --input GLOB [--input GLOB...] --output IDX [--index-format 1|2] [method flags]\n       neardup index --info IDX\n       neardup index --compact IDX\n\nflags:")
		fs.PrintDefaults()
	}
	fs.Init("index", flag.ContinueOnError)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ctx := context.Background()
	if *info != "" {
		m, err := index.ReadManifest(ctx, *info)
		if err != nil {
			return err
		}
		verr := m.Verify(ctx, *info)
		m.WriteInfo(stdout, *info, verr)
		orphans, err := index.Orphans(ctx, *info, m, math.MaxInt)
		index.WriteOrphans(stdout, orphans)
		return errors.Join(verr, err)
	}
	if *compact != "" {
		return compactIndex(ctx, *compact, *bits, stdout)
	}
	cfg.Inputs = append(inputs, fs.Args()...)
	if err := maxRecord(); err != nil {
		return err
	}
	switch *indexFormat {
	case 2:
		if err := cfg.ValidateIndex(); err != nil {
			return usageError{err}
		}
		return indexSegments(ctx, cfg, *bits, stdout, stderr)
	case 1:
	default:
		return usageError{fmt.Errorf("--index-format: %d, want 1 or 2", *indexFormat)}
	}
	beam.Init()
	var progress io.Writer
	if !cfg.Quiet {
		progress = stderr
	}
	res, err := pipeline.BuildIndex(ctx, cfg, *shards, progress)
	if errors.Is(err, pipeline.ErrDryRun) {
		fmt.Fprintf(stderr, "neardup index: %v\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	m := res.Manifest
	fmt.Fprintf(stdout, "indexed %d documents (%d records rejected, not indexed) into %s: %d bytes, %.1f per document\n",
		m.Documents, res.Counts["records_rejected"], cfg.Output, m.Bytes(), float64(m.Bytes())/float64(max(m.Documents, 1)))
	return nil
}

// againstFlags registers dedup's index flags.
func againstFlags(fs *flag.FlagSet, cfg *pipeline.Config) {
	fs.Func("against", "an index (neardup index) to deduplicate against: its documents are never removed and win their clusters; repeatable", func(v string) error {
		cfg.Against = append(cfg.Against, v)
		return nil
	})
	fs.BoolVar(&cfg.UpdateIndex, "update-index", false, "add the kept documents to the (one) --against index as a new generation, committed atomically after the outputs")
	fs.Func("prefer", "input file or glob whose documents win their clusters over other inputs' (as indexed documents do, but they may be removed by each other); repeatable", func(v string) error {
		cfg.Prefer = append(cfg.Prefer, v)
		return nil
	})
}

// indexUsageError makes an index whose method parameters differ from the run's a usage
// error (exit status 2): the flags are wrong, not the data.
func indexUsageError(err error) error {
	var mm *index.MismatchError
	if errors.As(err, &mm) {
		return usageError{err}
	}
	return err
}

// compactIndex merges an index's segments into one, or converts a format 1 index.
func compactIndex(ctx context.Context, dir string, bits int, stdout io.Writer) error {
	m, err := index.ReadManifest(ctx, dir)
	if err != nil {
		return err
	}
	before := len(m.Segments)
	if m.Segmented() {
		m, err = index.Compact(ctx, dir, m)
	} else {
		if bits < 1 || bits > 64 {
			return usageError{fmt.Errorf("--shingle-bits: %d, want 1 to 64", bits)}
		}
		if err := m.Verify(ctx, dir); err != nil {
			return err
		}
		before = len(m.Files)
		m, err = query.Convert(ctx, dir, m, bits)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "compacted %s: %d files into %d segment, generation %d, %d documents, %d bytes (%.1f per document)\n",
		dir, before, len(m.Segments), m.Generation, m.Documents, m.Bytes(), float64(m.Bytes())/float64(max(m.Documents, 1)))
	return nil
}

// indexSegments builds a new index of format 2 from JSONL inputs in this process. It
// refuses what only the pipeline does (another runner, text or Parquet inputs) rather
// than ignore it, naming --index-format 1.
func indexSegments(ctx context.Context, cfg pipeline.Config, bits int, stdout, stderr io.Writer) error {
	if bits < 1 || bits > 64 {
		return usageError{fmt.Errorf("--shingle-bits: %d, want 1 to 64", bits)}
	}
	if r := *runners.Runner; (r != "" && r != "prism" && r != "direct") || *jobopts.Endpoint != "" {
		return usageError{fmt.Errorf("--runner %s --endpoint %q: a format 2 index is built in this process; add --index-format 1 to build format 1 with the pipeline (then neardup index --compact converts it)", r, *jobopts.Endpoint)}
	}
	if _, err := index.ReadManifest(ctx, cfg.Output); err == nil {
		return fmt.Errorf("--output %s is already an index; add documents with dedup --against %s --update-index", cfg.Output, cfg.Output)
	}
	paths, err := files.ExpandInputs(ctx, cfg.Inputs)
	if err != nil {
		return usageError{fmt.Errorf("--input: %w", err)}
	}
	for _, p := range paths {
		if f, err := source.FileFormat(p, string(cfg.Format)); err != nil || f != source.FormatJSONL {
			return usageError{fmt.Errorf("--input %s: a format 2 index is built from JSONL; add --index-format 1 for text or Parquet inputs (then neardup index --compact converts it)", p)}
		}
	}
	limit := source.Config{MaxRecordBytes: cfg.MaxRecordBytes}.WithDefaults().MaxRecordBytes
	m, rejected, err := query.AddCounting(ctx, cfg.Output, index.NewSegmented(cfg.IndexParams(), bits), func(yield func(query.Item, error) bool) {
		for _, p := range paths {
			r, err := files.Open(ctx, p)
			if err != nil {
				yield(query.Item{}, err)
				return
			}
			stop := errors.New("stop")
			fields := query.Fields{ID: cfg.IDField, Text: cfg.TextField}
			err = query.ReadLinesMax(r, p, limit, func(num int64, b []byte, size int64) error {
				if b == nil { // over the limit: rejected (counted) as no document
					fmt.Fprintf(stderr, "neardup index: %s:%d: %s; not indexed\n", p, num, source.LongRecordReason(size, limit))
				}
				if !yield(query.Item{Line: &query.Line{Source: p, Num: num, Bytes: bytes.Clone(b), Fields: fields}}, nil) {
					return stop
				}
				return nil
			})
			r.Close()
			if err == stop {
				return
			}
			if err != nil {
				yield(query.Item{}, err)
				return
			}
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "indexed %d documents (%d records rejected, not indexed) into %s: %d bytes, %.1f per document\n",
		m.Documents, rejected, cfg.Output, m.Bytes(), float64(m.Bytes())/float64(max(m.Documents, 1)))
	return nil
}
