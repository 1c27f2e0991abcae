package source

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/neardup/neardup/record"
)

// Counters in the "neardup" namespace.
var (
	documentsRead       = beam.NewCounter("neardup", "documents_read")
	recordsRejected     = beam.NewCounter("neardup", "records_rejected")
	invalidUTF8Replaced = beam.NewCounter("neardup", "invalid_utf8_replaced")
	damagedFiles        = beam.NewCounter("neardup", "damaged_files")
)

func init() {
	register.DoFn4x1[context.Context, string, func(record.Doc), func(record.Rejected), error](&readFn{})
	register.Emitter1[record.Doc]()
	register.Emitter1[record.Rejected]()
}

// Read reads files (the output of Files) into Docs and Rejected records. Each file is one
// element: files are shuffled first so a runner can spread them over workers, and each is
// streamed line by line, so neither memory nor bundle size depends on file size.
func Read(s beam.Scope, fileList []string, cfg Config) (docs, rejected beam.PCollection) {
	s = s.Scope("source.Read")
	cfg = cfg.WithDefaults()
	names := beam.CreateList(s, fileList)
	names = beam.Reshuffle(s, names)
	return beam.ParDo2(s, &readFn{Format: cfg.Format, IDField: cfg.IDField, TextField: cfg.TextField, FailOnDamage: cfg.FailOnDamage}, names)
}

type readFn struct {
	Format, IDField, TextField string
	FailOnDamage               bool
}

func (f *readFn) ProcessElement(ctx context.Context, file string, doc func(record.Doc), rej func(record.Rejected)) error {
	cfg := Config{Format: f.Format, IDField: f.IDField, TextField: f.TextField}
	// Counters are added per file, not per record: per-record Inc would dominate the cost
	// of small records.
	st := ReadFile(ctx, file, cfg, doc, rej)
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
