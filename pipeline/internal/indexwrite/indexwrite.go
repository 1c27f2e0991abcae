// Package indexwrite writes index shards: `neardup index` turns every input document into an index row, and
// `dedup --update-index` every kept one (re-read from its input, like verification does);
// both then write the shards that received rows into a new generation directory, merged
// with the shard's current file. The driver commits the generation's manifest after the
// pipeline succeeded (index.Commit).
// It imports elem, no stage.
package indexwrite

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/batch"
	"github.com/neardup/neardup/internal/once"
	"github.com/neardup/neardup/internal/wire"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/record"
	"github.com/neardup/neardup/shingleset"
)

// indexEntriesFile, in the run's temporary directory, lists the shard files written.
const indexEntriesFile = "index-entries.json"

// rowBatch holds index rows of one shard, or (Spilled) references to local files that
// hold them (elem.Spiller): a row carries the document's shingle hashes, so the rows are
// the index build's bulk.
type rowBatch = elem.Batch[index.Row]

var rowCodec = elem.Codec[index.Row]{
	Put: func(e *wire.Encoder, r index.Row) {
		e.Str(r.ID)
		e.Hashes(r.Shingles)
	},
	Get:    func(d *wire.Decoder) index.Row { return index.Row{ID: d.Str(), Shingles: d.Hashes()} },
	Size:   func(r index.Row) int { return len(r.ID) + 8*len(r.Shingles) + 4 },
	Spills: true,
}

// rowSink sends a bundle's index rows on in batches per shard, or to spill files.
type rowSink struct {
	rows  *batch.ByPartition[index.Row]
	spill elem.Spiller
}

func newRowSink(shards int, spillDir string) rowSink {
	return rowSink{rows: batch.New[index.Row](shards, elem.BatchItems/16), spill: elem.Spiller{Dir: spillDir, Kind: "rows"}}
}

func (s *rowSink) add(k int, r index.Row, emit func(int, rowBatch)) {
	s.rows.Add(k, r, func(k int, items []index.Row) { s.send(k, items, emit) })
}

func (s *rowSink) send(k int, items []index.Row, emit func(int, rowBatch)) {
	elem.SendOrSpill(&s.spill, k, rowBatch{Items: items}, rowCodec.Encode, emit)
}

func (s *rowSink) finish(emit func(int, rowBatch)) error {
	s.rows.Flush(func(k int, items []index.Row) { s.send(k, items, emit) })
	return s.spill.Close(func(k int, ref string) { emit(k, rowBatch{Spilled: []string{ref}}) })
}

func init() {
	elem.RegisterBatch(rowCodec)
	beam.RegisterType(reflect.TypeOf(index.FileEntry{}))
	register.Function2x0(keptLine)
	register.DoFn2x1[record.Doc, func(int, rowBatch), error](&docRowFn{})
	register.DoFn4x1[context.Context, string, func(*int64) bool, func(int, rowBatch), error](&keptRowsFn{})
	register.DoFn3x2[context.Context, int, rowBatch, index.FileEntry, error](&writeShardFn{})
	register.DoFn4x1[context.Context, int, func(*[]byte) bool, func(*index.FileEntry) bool, error](&writeEntriesFn{})
	register.Emitter2[int, rowBatch]()
	register.Emitter2[string, int64]()
	register.Iter1[int64]()
	once.Register[index.FileEntry]()
}

// Target is where a run writes index shards: the index, the generation directory
// (relative to it) and the shard files of the generation it starts from.
//
// An index of segments (format 2) gets one new segment of all the rows, which the
// driver commits with index.CommitSegment: Shards is then 1.
type Target struct {
	Dir, GenDir string
	Shards      int
	Old         map[int]string // shard → current file, relative to Dir
	Segments    *index.Manifest
}

func NewTarget(dir string, prev *index.Manifest) *Target {
	w := &Target{Dir: dir, GenDir: prev.GenerationDir(), Shards: prev.Shards, Old: map[int]string{}}
	if prev.Segmented() {
		w.Shards, w.Segments = 1, prev
	}
	for _, f := range prev.Files {
		w.Old[f.Shard] = f.Path
	}
	return w
}

// Update adds the kept input documents of decisions (PCollection<record.Decisions>)
// to the index w.
func Update(s beam.Scope, decisions beam.PCollection, w *Target, o Options, tempDir string) {
	s = s.Scope("indexwrite.Update")
	kept := beam.ParDo(s, keptLine, decisions)
	rows := beam.ParDo(s, &keptRowsFn{Shingle: o.Shingle, Source: o.Source, Shards: w.Shards, SpillDir: o.SpillDir},
		beam.GroupByKey(s, kept))
	WriteShards(s, rows, w, tempDir)
}

// Options are what making index rows depends on.
type Options struct {
	Shingle  shingleset.Config
	Source   source.Config
	SpillDir string
}

// Rows makes an index row of every document of PCollection<record.Doc>, for shards
// shards: PCollection<KV<int, rowBatch>> keyed by shard, for WriteShards.
func Rows(s beam.Scope, docs beam.PCollection, shards int, o Options) beam.PCollection {
	return beam.ParDo(s.Scope("indexwrite.Rows"), &docRowFn{Shingle: o.Shingle, Shards: shards, SpillDir: o.SpillDir}, docs)
}

func keptLine(b record.Decisions, emit func(string, int64)) {
	for _, d := range b.Items {
		if !d.Removed {
			emit(d.File, d.Line)
		}
	}
}

// WriteShards writes the shards of rows (PCollection<KV<int, rowBatch>>, keyed by shard)
// and lists the written files in tempDir/indexEntriesFile.
func WriteShards(s beam.Scope, rows beam.PCollection, w *Target, tempDir string) {
	s = s.Scope("indexwrite.WriteShards")
	entries := beam.ParDo(s, &writeShardFn{Write: *w}, elem.Gather[index.Row](s, rows))
	beam.ParDo0(s, &writeEntriesFn{Path: files.Join(tempDir, indexEntriesFile)}, once.Group[index.FileEntry](s, entries))
}

// docRowFn makes an index row of every input document.
type docRowFn struct {
	Shingle  shingleset.Config
	Shards   int
	SpillDir string

	sh  *shingleset.Shingler
	out rowSink
}

func (f *docRowFn) Setup() (err error) {
	f.out = newRowSink(f.Shards, f.SpillDir)
	f.sh, err = f.Shingle.Shingler()
	return err
}

func (f *docRowFn) ProcessElement(d record.Doc, emit func(int, rowBatch)) error {
	elem.Progress.Read.Add(1)
	h, _ := f.sh.Hashes(d.Text)
	f.out.add(index.ShardOf(d.ID, f.Shards), index.Row{ID: d.ID, Shingles: h}, emit)
	return nil
}

func (f *docRowFn) FinishBundle(emit func(int, rowBatch)) error { return f.out.finish(emit) }

// keptRowsFn re-reads one input file and makes index rows of its kept lines.
type keptRowsFn struct {
	Shingle  shingleset.Config
	Source   source.Config
	Shards   int
	SpillDir string

	out rowSink
}

func (f *keptRowsFn) Setup() { f.out = newRowSink(f.Shards, f.SpillDir) }

func (f *keptRowsFn) FinishBundle(emit func(int, rowBatch)) error { return f.out.finish(emit) }

func (f *keptRowsFn) ProcessElement(ctx context.Context, file string, lines func(*int64) bool, emit func(int, rowBatch)) error {
	sh, err := f.Shingle.Shingler()
	if err != nil {
		return err
	}
	var want []int64
	var l int64
	for lines(&l) {
		want = append(want, l)
	}
	slices.Sort(want)
	next := 0
	source.ReadFile(ctx, file, f.Source, func(d record.Doc) {
		if next < len(want) && want[next] == d.Line {
			next++
			h, _ := sh.Hashes(d.Text)
			f.out.add(index.ShardOf(d.ID, f.Shards), index.Row{ID: d.ID, Shingles: h}, emit)
		}
	}, func(record.Rejected) {})
	if next < len(want) {
		return fmt.Errorf("re-read %s: kept line %d is no longer readable (the file changed during the run?)", file, want[next])
	}
	return nil
}

// writeShardFn merges a shard's new rows with its current file and writes the result.
type writeShardFn struct{ Write Target }

func (f *writeShardFn) ProcessElement(ctx context.Context, k int, batch rowBatch) (index.FileEntry, error) {
	rows := batch.Items
	if err := elem.Unspill(batch.Spilled, rowCodec.Decode, func(b rowBatch) { rows = append(rows, b.Items...) }); err != nil {
		return index.FileEntry{}, err
	}
	if f.Write.Segments != nil {
		return writeSegment(ctx, f.Write, rows)
	}
	if old, ok := f.Write.Old[k]; ok {
		if err := index.ReadShard(ctx, files.Join(f.Write.Dir, old), func(_ int64, r index.Row) error {
			rows = append(rows, r)
			return nil
		}); err != nil {
			return index.FileEntry{}, fmt.Errorf("index %s: %w", f.Write.Dir, err)
		}
	}
	if err := index.SortRows(rows); err != nil {
		return index.FileEntry{}, fmt.Errorf("index %s, shard %d: %w", f.Write.Dir, k, err)
	}
	return index.WriteShard(ctx, f.Write.Dir, f.Write.GenDir+"/"+index.ShardName(k), k, rows)
}

// writeEntriesFn writes the list of written shard files, once, for the driver.
type writeEntriesFn struct{ Path string }

func (f *writeEntriesFn) ProcessElement(ctx context.Context, _ int, _ func(*[]byte) bool, iter func(*index.FileEntry) bool) error {
	var all []index.FileEntry
	var e index.FileEntry
	for iter(&e) {
		all = append(all, e)
	}
	slices.SortFunc(all, func(a, b index.FileEntry) int { return cmp.Compare(a.Shard, b.Shard) })
	b, err := json.Marshal(all)
	if err != nil {
		return err
	}
	if err := files.WriteFile(ctx, f.Path, func(w *bufio.Writer) { w.Write(b) }); err != nil {
		return err
	}
	return nil
}

// ReadEntries reads what writeEntriesFn wrote.
func ReadEntries(ctx context.Context, tempDir string) ([]index.FileEntry, error) {
	path := files.Join(tempDir, indexEntriesFile)
	r, err := files.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("index update: %w", err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("index update: read %s: %w", path, err)
	}
	var out []index.FileEntry
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("index update: %s: %w", path, err)
	}
	return out, nil
}
