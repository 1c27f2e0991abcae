// Package against brings the documents of --against indexes and --prefer inputs into
// the dedup pipeline: indexed documents are read from their shards and featurized
// where they are read, preferred ones renamed into their class (elem.IDClass). It
// imports elem and features, no later stage.
package against

import (
	"context"
	"errors"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/features"
	"github.com/neardup/neardup/record"
)

func init() {
	register.DoFn3x1[context.Context, ShardRef, func(int, elem.First), error](&readIndexFn{})
	register.DoFn2x0[record.Doc, func(record.Doc)](&preferFn{})
	register.Emitter1[record.Doc]()
}

// ShardRef is one shard file of the ord-th index.
type ShardRef struct {
	Ord  int
	Path string
}

// Prefer moves the documents of the preferred input files into their class:
// PCollection<record.Doc> in and out.
func Prefer(s beam.Scope, docs beam.PCollection, preferred []string) beam.PCollection {
	if len(preferred) == 0 {
		return docs
	}
	return beam.ParDo(s.Scope("against.Prefer"), &preferFn{Files: preferred}, docs)
}

// WithIndexes adds to the input documents' features.Signed the indexed documents'
// locations, set fingerprints and band entries, made by the same locate and featurize
// DoFns, and their counts (indexed_documents and features.Sign's), all in
// Signed.First; Indexed passes through. They are made where each shard file is read:
// indexed documents, which carry their shingle hashes, are never shuffled as Docs.
func WithIndexes(s beam.Scope, refs []ShardRef, o features.Options, in features.Signed) features.Signed {
	if len(refs) == 0 {
		return in
	}
	s = s.Scope("against.WithIndexes")
	o.Lookup = nil // indexed documents are never looked up
	out := beam.ParDo(s, &readIndexFn{Sign: features.SignFn{Locate: *features.NewLocate(o), Featurize: *features.NewFeaturize(o)}},
		beam.Reshuffle(s, beam.CreateList(s, refs)))
	return features.Signed{First: beam.Flatten(s, in.First, out), Indexed: in.Indexed}
}

// preferFn moves the documents of preferred input files into the preferred class.
type preferFn struct {
	Files []string
	set   map[string]bool
}

func (f *preferFn) ProcessElement(d record.Doc, emit func(record.Doc)) {
	if f.set == nil {
		f.set = map[string]bool{}
		for _, p := range f.Files {
			f.set[p] = true
		}
	}
	if f.set[d.File] {
		d.ID = elem.PreferredPrefix + d.ID
	}
	emit(d)
}

// readIndexFn reads one shard file as Docs (the stored id made internal, the file and
// 1-based row number where verification finds it again, the shingle hashes) and passes
// each through locate and featurize.
type readIndexFn struct {
	Sign features.SignFn
}

func (f *readIndexFn) Setup() error { return f.Sign.Setup() }

func (f *readIndexFn) Teardown() { f.Sign.Teardown() }

func (f *readIndexFn) ProcessElement(ctx context.Context, ref ShardRef, emit func(int, elem.First)) error {
	var n int64
	err := index.ReadShard(ctx, ref.Path, func(num int64, r index.Row) error {
		n++
		d := record.Doc{ID: elem.IndexedID(ref.Ord, r.ID), File: ref.Path, Line: num, Shingles: r.Shingles}
		f.Sign.ProcessElement(d, emit)
		return nil
	})
	// Sign batches its output: flush it while this element's emitter is valid.
	ferr := f.Sign.FinishBundle(ctx, emit)
	emit(0, elem.First{Counts: []tally.Count{{Name: "indexed_documents", N: n}}})
	return errors.Join(err, ferr)
}
