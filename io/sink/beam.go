package sink

import (
	"context"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/record"
)

// Counters in the "neardup" namespace: the lines written to each output. Their sum equals
// the inputs' line count (documents_read + records_rejected).
var (
	outputKept     = beam.NewCounter("neardup", "output_kept")
	outputRemoved  = beam.NewCounter("neardup", "output_removed")
	outputRejected = beam.NewCounter("neardup", "output_rejected")
)

func init() {
	register.Function1x2(keyDecision)
	register.Function1x2(keyRejected)
	register.Function1x2(keyAnnotated)
	register.DoFn3x2[context.Context, string, func(*entry) bool, part, error](&writePartFn{})
	register.DoFn3x1[context.Context, []byte, func(*part) bool, error](&concatFn{})
	register.Iter1[entry]()
	register.Iter1[part]()
}

// Write writes kept, removed and rejected outputs under cfg.TempDir from the pipeline's
// Decisions (one per Doc) and the reader's Rejected records.
//
// Outcomes are grouped by input file; each file is re-read once, streaming, and its lines
// are routed to per-file part files (files are written in parallel across workers, and only
// the file's small line → outcome table is held in memory). One final step, run once after
// every part exists, concatenates the parts in sorted file order, so each output is ordered
// by (file, line) and identical from run to run whatever the runner or bundling.
func Write(s beam.Scope, decisions, rejected beam.PCollection, cfg WriteConfig) {
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
	var d beam.PCollection
	if cfg.Annotate != "" {
		d = beam.ParDo(s, keyAnnotated, decisions)
	} else {
		d = beam.ParDo(s, keyDecision, decisions)
	}
	r := beam.ParDo(s, keyRejected, rejected)
	byFile := beam.GroupByKey(s, beam.Flatten(s, d, r))
	parts := beam.ParDo(s, &writePartFn{TempDir: cfg.TempDir, Format: cfg.Format, Annotate: cfg.Annotate}, byFile)
	// Impulse + side input rather than a GroupByKey of the parts: it runs exactly once even
	// when there are no parts at all (empty input), so the outputs always exist.
	beam.ParDo0(s, &concatFn{TempDir: cfg.TempDir, Format: cfg.Format, Annotate: cfg.Annotate != ""}, beam.Impulse(s), beam.SideInput{Input: parts})
}

func keyDecision(d record.Decision) (string, entry) { return d.File, fromDecision(d) }

func keyRejected(r record.Rejected) (string, entry) { return r.File, fromRejected(r) }

type writePartFn struct {
	TempDir, Format string
	Annotate        string // the --mode annotate field prefix; empty in dedup mode
}

func (f *writePartFn) ProcessElement(ctx context.Context, file string, entries func(*entry) bool) (part, error) {
	var p plan
	var e entry
	for entries(&e) {
		if err := p.add(e); err != nil {
			return part{}, fmt.Errorf("outcomes for %s: %w", file, err)
		}
	}
	pt, err := writePart(ctx, f.TempDir, f.Format, f.Annotate, file, &p)
	if err != nil {
		return part{}, err
	}
	outputKept.Inc(ctx, pt.NKept)
	outputRemoved.Inc(ctx, pt.NRemoved)
	outputRejected.Inc(ctx, pt.NRejected)
	return pt, nil
}

type concatFn struct {
	TempDir, Format string
	Annotate        bool
}

func (f *concatFn) ProcessElement(ctx context.Context, _ []byte, parts func(*part) bool) error {
	var all []part
	var p part
	for parts(&p) {
		all = append(all, p)
	}
	return concat(ctx, f.TempDir, f.Format, f.Annotate, all)
}
