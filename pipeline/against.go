package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/record"
	"github.com/neardup/neardup/transforms/shingleset"
)

// Deduplicating against an index (--against) and preferring inputs (--prefer) reuse the
// whole pipeline: indexed documents enter it as Docs that carry their stored shingle
// hashes, and they and the documents of preferred inputs take part under internal ids
// that sort before every input id. Since every stage picks the smallest id (the exact-
// duplicate representative, a bucket's hub, a cluster's label), these documents win
// their clusters with no stage knowing about them; the keep policy only has to keep the
// kept one in the best class and never remove an indexed document, and Decide gives
// indexed documents no Decision (they are not input records) and turns internal ids back
// into the users' ids.

func init() {
	register.DoFn5x1[context.Context, shardRef, func(int, locBatch), func(int, setBatch), func(int, bandBatch), error](&readIndexFn{})
	register.DoFn2x0[record.Doc, func(record.Doc)](&preferFn{})
	register.Emitter1[record.Doc]()
}

var indexedDocuments = beam.NewCounter(metricsNS, "indexed_documents")

// Id classes, in the order they win a cluster.
const (
	classIndexed = iota
	classPreferred
	classInput
)

const (
	indexedPrefix   = "\x00i"
	preferredPrefix = "\x00p\x00"
	maxIndexes      = 1000
)

// indexedID is the internal id of document id of the ord-th --against index.
func indexedID(ord int, id string) string { return fmt.Sprintf("%s%03d\x00%s", indexedPrefix, ord, id) }

func idClass(id string) int {
	switch {
	case strings.HasPrefix(id, indexedPrefix):
		return classIndexed
	case strings.HasPrefix(id, preferredPrefix):
		return classPreferred
	}
	return classInput
}

// indexOf is the ordinal of an indexed id's index, or -1.
func indexOf(id string) int {
	if !strings.HasPrefix(id, indexedPrefix) || len(id) < len(indexedPrefix)+4 {
		return -1
	}
	n, err := strconv.Atoi(id[len(indexedPrefix) : len(indexedPrefix)+3])
	if err != nil {
		return -1
	}
	return n
}

// externalID is the id the user gave a document.
func externalID(id string) string {
	switch idClass(id) {
	case classIndexed:
		return id[len(indexedPrefix)+4:]
	case classPreferred:
		return id[len(preferredPrefix):]
	}
	return id
}

// docHashes is sh.Hashes for a Doc: an indexed document brings its stored hashes (already
// capped when the index was built with the same --max-shingles).
func docHashes(sh *Shingler, d record.Doc) ([]uint64, bool) {
	if idClass(d.ID) == classIndexed {
		return d.Shingles, false
	}
	return sh.Hashes(d.Text)
}

// docSet is docHashes in no particular order, in scratch's memory (see Shingler.Set).
func docSet(sh *Shingler, scratch *shingleset.Scratch, d record.Doc) ([]uint64, bool) {
	if idClass(d.ID) == classIndexed {
		return d.Shingles, false
	}
	return sh.Set(d.Text, scratch)
}

// IndexParams are the parameters an index built or used with this configuration records.
func (c *Config) IndexParams() index.Params {
	norm := "nfkc,lower,whitespace"
	if c.Normalize.StripPunct {
		norm += ",strip-punct"
	}
	return index.Params{
		NumPerm: c.NumPerm, Scheme: string(c.Scheme), Hash: string(c.Hash), Seed: c.Seed, Bands: c.Bands, Rows: c.Rows,
		Threshold: c.Threshold, Shingle: c.Shingle.Kind.String(), NGram: c.Shingle.N, Normalization: norm,
		MaxShingles: c.MaxShingles,
	}
}

// OpenIndexes reads and checks every --against index (parameters, then every file's
// checksum) and expands --prefer, before any pipeline is built. A parameter mismatch is
// an *index.MismatchError. cfg must be validated.
func (c *Config) OpenIndexes(ctx context.Context) error {
	if len(c.Against) > maxIndexes {
		return fmt.Errorf("--against: at most %d indexes, got %d", maxIndexes, len(c.Against))
	}
	if c.UpdateIndex && len(c.Against) != 1 {
		return fmt.Errorf("--update-index: needs exactly one --against index to update, got %d", len(c.Against))
	}
	c.indexes = c.indexes[:0]
	for _, dir := range c.Against {
		m, err := index.Open(ctx, dir, c.IndexParams())
		if err != nil {
			return err
		}
		c.indexes = append(c.indexes, m)
	}
	if c.UpdateIndex {
		c.indexWrite = newIndexWrite(c.Against[0], c.indexes[0])
	}
	c.preferred = nil
	if len(c.Prefer) > 0 {
		list, err := files.Expand(ctx, c.Prefer)
		if err != nil {
			return fmt.Errorf("--prefer: %w", err)
		}
		c.preferred = list
	}
	return nil
}

// shardRef is one shard file of the ord-th index.
type shardRef struct {
	Ord  int
	Path string
}

func (c *Config) shardRefs() []shardRef {
	var refs []shardRef
	for ord, m := range c.indexes {
		for _, p := range m.ShardPaths(c.Against[ord]) {
			refs = append(refs, shardRef{Ord: ord, Path: p})
		}
	}
	return refs
}

// renamedFiles maps each index shard file to its index's ordinal and each preferred input
// to -1, for the verification re-read.
func (c *Config) renamedFiles() map[string]int {
	out := map[string]int{}
	for _, r := range c.shardRefs() {
		out[r.Path] = r.Ord
	}
	for _, p := range c.preferred {
		out[p] = -1
	}
	return out
}

// read streams the Docs of an input file (under their internal ids), or the requested
// rows of an index shard file.
func (f *rereadFn) read(ctx context.Context, file string, reqs []ReadRequest, doc func(record.Doc)) error {
	ord, ok := f.Renamed[file]
	if ok && ord >= 0 {
		rows := make([]int64, len(reqs))
		for i, r := range reqs {
			rows[i] = r.Line
		}
		return readIndexed(ctx, file, ord, rows, doc)
	}
	lines := make([]int64, 0, len(reqs))
	for _, r := range reqs {
		if len(lines) == 0 || lines[len(lines)-1] != r.Line {
			lines = append(lines, r.Line)
		}
	}
	if ok {
		source.ReadLines(ctx, file, f.Source, lines, func(d record.Doc) {
			d.ID = preferredPrefix + d.ID
			doc(d)
		})
		return nil
	}
	source.ReadLines(ctx, file, f.Source, lines, doc)
	return nil
}

// withPreferred moves the documents of preferred inputs into their class:
// PCollection<record.Doc> in and out.
func withPreferred(s beam.Scope, docs beam.PCollection, cfg *Config) beam.PCollection {
	if len(cfg.preferred) == 0 {
		return docs
	}
	return beam.ParDo(s.Scope("Prefer"), &preferFn{Files: cfg.preferred}, docs)
}

// withIndexes adds the indexed documents' locations (PCollection<KV<int, locBatch>>),
// set fingerprints (KV<int, setBatch>) and band entries (KV<int, bandBatch>) to the
// input documents', made by the same locate and featurize DoFns. They are made where
// each shard file is read: indexed documents, which carry their shingle hashes, are
// never shuffled as Docs.
func withIndexes(s beam.Scope, cfg *Config, locate *locateFn, featurize *featurizeFn, locs, sets, bands beam.PCollection) (beam.PCollection, beam.PCollection, beam.PCollection) {
	refs := cfg.shardRefs()
	if len(refs) == 0 {
		return locs, sets, bands
	}
	s = s.Scope("ReadIndexes")
	il, is, ib := beam.ParDo3(s, &readIndexFn{Locate: *locate, Featurize: *featurize}, beam.Reshuffle(s, beam.CreateList(s, refs)))
	return beam.Flatten(s, locs, il), beam.Flatten(s, sets, is), beam.Flatten(s, bands, ib)
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
		d.ID = preferredPrefix + d.ID
	}
	emit(d)
}

// readIndexFn reads one shard file as Docs (the stored id made internal, the file and
// 1-based row number where verification finds it again, the shingle hashes) and passes
// each through locate and featurize.
type readIndexFn struct {
	Locate    locateFn
	Featurize featurizeFn
}

func (f *readIndexFn) Setup() error {
	f.Locate.Setup()
	return f.Featurize.Setup()
}

func (f *readIndexFn) Teardown() { f.Featurize.Teardown() }

func (f *readIndexFn) ProcessElement(ctx context.Context, ref shardRef, emitLoc func(int, locBatch), emitSet func(int, setBatch), emitBand func(int, bandBatch)) error {
	var n int64
	err := index.ReadShard(ctx, ref.Path, func(num int64, r index.Row) error {
		n++
		d := record.Doc{ID: indexedID(ref.Ord, r.ID), File: ref.Path, Line: num, Shingles: r.Shingles}
		f.Locate.ProcessElement(d, emitLoc)
		f.Featurize.ProcessElement(d, emitSet, emitBand)
		return nil
	})
	// Both batch their output: flush it while this element's emitters are valid.
	f.Locate.FinishBundle(emitLoc)
	ferr := f.Featurize.FinishBundle(ctx, emitSet, emitBand)
	indexedDocuments.Inc(ctx, n)
	return errors.Join(err, ferr)
}

// readIndexed reads the requested rows (sorted) of a shard file of index ord as Docs.
func readIndexed(ctx context.Context, file string, ord int, rows []int64, doc func(record.Doc)) error {
	rows = slices.Compact(slices.Clone(rows))
	return index.ReadSelected(ctx, file, rows, func(num int64, r index.Row) error {
		doc(record.Doc{ID: indexedID(ord, r.ID), File: file, Line: num, Shingles: r.Shingles})
		return nil
	})
}

// decisionOf is the Decision of an input document from its fate; indexes names the
// --against indexes, so a removal by an indexed document names its index.
func decisionOf(l IDLoc, ft Fate, clustered bool, indexes []string) record.Decision {
	d := record.Decision{File: l.File, Line: l.Line, ID: externalID(l.ID), Cluster: externalID(l.ID), ClusterSize: 1}
	if !clustered {
		return d
	}
	d.Cluster, d.Removed, d.ClusterSize = externalID(ft.Cluster), ft.Removed, ft.Size
	if ft.Removed {
		d.Similarity = ft.Sim
	}
	if ord := indexOf(ft.Cluster); ord >= 0 && ord < len(indexes) {
		d.Index = indexes[ord]
	}
	return d
}
