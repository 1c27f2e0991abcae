// Package features is the first stage of the dedup pipeline: it normalizes, shingles,
// signs and bands every document in one pass, locates it, checks that ids are unique
// and joins exact duplicates. It imports elem and the pure algorithms, no other stage.
package features

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/batch"
	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/internal/onekey"
	"github.com/neardup/neardup/internal/ordered"
	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/record"
	"github.com/neardup/neardup/shingle"
	"github.com/neardup/neardup/shingleset"
)

// Options are the featurizing stage's settings.
type Options struct {
	Shingle    shingleset.Config
	Scheme     string // minhash.Scheme
	Seed       int64
	NumPerm    int
	Bands      int
	Rows       int
	Partitions int
	SpillDir   string // where band entries, set keys and locations are spilled; "": through the runner
	// Containment, when set, replaces the Bands×Rows banding with the size-class
	// banding of --measure containment.
	Containment *lsh.ContainmentScheme
	// Lookup are the --against indexes of segments, looked up by every document.
	Lookup []LookupRef
}

// Signed is what Sign makes of the documents.
type Signed struct {
	// First is PCollection<KV<int, elem.First>>, ungathered: each location by id
	// partition, set fingerprints by set partition, band entries by band-key partition,
	// and the counts (shingles, empty_documents, capped_documents, index_verified_pairs).
	First beam.PCollection
	// Indexed is PCollection<KV<int, elem.EdgeBatch>> under key 0: the verified edges to
	// the documents of the Options.Lookup indexes; not valid (IsValid) without them.
	Indexed beam.PCollection
}

// Sign locates and featurizes PCollection<record.Doc> into their locations, set
// fingerprints, band entries and counts, all in one collection (elem.First), and the
// edges to looked-up indexes (Signed).
//
// Without Lookup indexes it has one output, not an empty edges output beside it: a
// portable runner may send every element of a fused stage once to each of its outputs
// (Flink's batch translator does), so each output costs a pass over the whole stage's
// output.
func Sign(s beam.Scope, docs beam.PCollection, o Options) Signed {
	s = s.Scope("features.Sign")
	fn := SignFn{Locate: *NewLocate(o), Featurize: *NewFeaturize(o)}
	if len(o.Lookup) == 0 {
		return Signed{First: beam.ParDo(s, &fn, docs)}
	}
	first, indexed := beam.ParDo2(s, &lookupSignFn{SignFn: fn}, docs)
	return Signed{First: first, Indexed: indexed}
}

// SignFn locates and featurizes documents into one output, elem.First.
type SignFn struct {
	Locate    LocateFn
	Featurize FeaturizeFn
}

func (f *SignFn) Setup() error {
	f.Locate.Setup()
	return f.Featurize.Setup()
}

func (f *SignFn) Teardown() { f.Featurize.Teardown() }

func (f *SignFn) ProcessElement(d record.Doc, emit func(int, elem.First)) {
	f.process(d, emit, NoEdges)
}

func (f *SignFn) FinishBundle(ctx context.Context, emit func(int, elem.First)) error {
	return f.finish(ctx, emit, NoEdges)
}

func (f *SignFn) process(d record.Doc, emit func(int, elem.First), emitEdge func(int, elem.EdgeBatch)) {
	f.Locate.ProcessElement(d, func(p int, b elem.LocBatch) { emit(p, elem.First{Locs: b}) })
	f.Featurize.ProcessElement(d, func(p int, b elem.SetBatch) { emit(p, elem.First{Sets: b}) },
		func(p int, b elem.BandBatch) { emit(p, elem.First{Bands: b}) }, emitEdge, nil)
}

// finish flushes the bundle's batches; its counts go out in one First, under partition 0.
func (f *SignFn) finish(ctx context.Context, emit func(int, elem.First), emitEdge func(int, elem.EdgeBatch)) error {
	var counts []tally.Count
	err := f.Featurize.FinishBundle(ctx, func(p int, b elem.SetBatch) { emit(p, elem.First{Sets: b}) },
		func(p int, b elem.BandBatch) { emit(p, elem.First{Bands: b}) }, emitEdge,
		func(c tally.Count) { counts = append(counts, c) })
	err = errors.Join(err, f.Locate.FinishBundle(func(p int, b elem.LocBatch) { emit(p, elem.First{Locs: b}) }))
	if len(counts) > 0 {
		emit(0, elem.First{Counts: counts})
	}
	return err
}

// lookupSignFn is SignFn with the edges to looked-up indexes as a second output.
type lookupSignFn struct{ SignFn }

func (f *lookupSignFn) ProcessElement(d record.Doc, emit func(int, elem.First), emitEdge func(int, elem.EdgeBatch)) {
	f.process(d, emit, emitEdge)
}

func (f *lookupSignFn) FinishBundle(ctx context.Context, emit func(int, elem.First), emitEdge func(int, elem.EdgeBatch)) error {
	return f.finish(ctx, emit, emitEdge)
}

// NoEdges receives the edges to looked-up indexes of a featurizing that has none.
func NoEdges(int, elem.EdgeBatch) {}

// NewLocate is the DoFn Sign locates documents with.
func NewLocate(o Options) *LocateFn { return &LocateFn{Partitions: o.Partitions, SpillDir: o.SpillDir} }

// NewFeaturize is the DoFn Sign featurizes documents with.
func NewFeaturize(o Options) *FeaturizeFn {
	return &FeaturizeFn{Shingle: o.Shingle, Scheme: o.Scheme, Seed: o.Seed, NumPerm: o.NumPerm,
		Bands: o.Bands, Rows: o.Rows, Partitions: o.Partitions, SpillDir: o.SpillDir, Lookup: o.Lookup, Containment: o.Containment}
}

// CheckUniqueIDs fails the run on a duplicate id among the locations,
// PCollection<KV<int, elem.LocBatch>> gathered by id partition (elem.SplitFirst). It
// returns the locations, checked, in batches of at most elem.ShuffleBytes: every later
// stage that meets a document's location reads these, so none gets past a duplicate id.
func CheckUniqueIDs(s beam.Scope, locs beam.PCollection) (checked beam.PCollection) {
	s = s.Scope("features.CheckUniqueIDs")
	return beam.ParDo(s, checkUniqueIDs, locs)
}

// Collapse joins exact duplicates among the set fingerprints,
// PCollection<KV<int, elem.SetBatch>> gathered by set partition (elem.SplitFirst):
// PCollection<KV<int, elem.EdgeBatch>> of similarity-1.0 edges, under key 0, and their
// number as PCollection<tally.Count> (exact_duplicates).
func Collapse(s beam.Scope, sets beam.PCollection) (edges, counts beam.PCollection) {
	s = s.Scope("features.Collapse")
	return beam.ParDo2(s, &collapseFn{}, sets)
}

func init() {
	register.Function3x1(checkUniqueIDs)
	register.DoFn2x0[record.Doc, func(int, elem.First)](&SignFn{})
	register.DoFn3x0[record.Doc, func(int, elem.First), func(int, elem.EdgeBatch)](&lookupSignFn{})
	register.DoFn4x1[int, elem.SetBatch, func(int, elem.EdgeBatch), func(tally.Count), error](&collapseFn{})
	// Exact-duplicate edges go under one key, for --cc local.
	onekey.Producer(&lookupSignFn{}, 1)
	onekey.Producer(&collapseFn{}, 0)
	register.Emitter2[int, elem.LocBatch]()
	register.Emitter2[int, elem.SetBatch]()
	register.Emitter2[int, elem.BandBatch]()
	register.Emitter2[int, elem.EdgeBatch]()
}

var (
	shingleNanos = beam.NewCounter(elem.MetricsNS, "shingle_nanos")
	minhashNanos = beam.NewCounter(elem.MetricsNS, "minhash_nanos")
)

// LocateFn keys a document's position by its id's partition, in batches per partition:
// the part of SignFn that locates, not a DoFn of its own.
type LocateFn struct {
	Partitions int
	SpillDir   string // where the locations are spilled (elem.LocBatch); "": through the runner

	locs  *batch.ByPartition[elem.IDLoc]
	spill elem.Spiller
}

func (f *LocateFn) Setup() {
	f.locs = batch.New[elem.IDLoc](f.Partitions, elem.BatchItems)
	f.spill = elem.Spiller{Dir: f.SpillDir, Kind: "locs"}
}

func (f *LocateFn) ProcessElement(d record.Doc, emit func(int, elem.LocBatch)) {
	elem.Progress.Read.Add(1)
	f.locs.Add(elem.PartOfString(d.ID, f.Partitions), elem.IDLoc{ID: d.ID, File: d.File, Line: d.Line},
		func(p int, items []elem.IDLoc) { f.send(p, items, emit) })
}

func (f *LocateFn) FinishBundle(emit func(int, elem.LocBatch)) error {
	f.locs.Flush(func(p int, items []elem.IDLoc) { f.send(p, items, emit) })
	return f.spill.Close(func(p int, ref string) { emit(p, elem.LocBatch{Spilled: []string{ref}}) })
}

func (f *LocateFn) send(p int, items []elem.IDLoc, emit func(int, elem.LocBatch)) {
	elem.SendOrSpill(&f.spill, p, items, elem.SpillLocs, func(p int, items []elem.IDLoc) { emit(p, elem.LocBatch{Items: items}) })
}

// checkUniqueIDs sorts a partition's locations by id and fails the run when two records
// share an id: every later stage joins by id, so a duplicate would silently merge two
// documents.
//
// Spilled locations are read to be checked and passed on as their references, so the
// runner never holds them; the stages after read them again.
func checkUniqueIDs(part int, batch elem.LocBatch, emit func(int, elem.LocBatch)) error {
	locs, err := elem.LocItems(batch)
	if err != nil {
		return err
	}
	slices.SortFunc(locs, func(a, b elem.IDLoc) int { return cmp.Compare(a.ID, b.ID) })
	for i := 1; i < len(locs); i++ {
		if a, b := locs[i-1], locs[i]; a.ID == b.ID {
			first, second := a, b
			if cmp.Or(cmp.Compare(b.File, a.File), cmp.Compare(b.Line, a.Line)) < 0 {
				first, second = b, a
			}
			return fmt.Errorf("duplicate id %q: %s:%d and %s:%d (ids must be unique: remove or rename one of them, or name a unique field with --id-field; a record whose id field is missing or empty gets the id FILE:LINE)",
				a.ID, first.File, first.Line, second.File, second.Line)
		}
	}
	if len(batch.Spilled) > 0 {
		emit(part, batch) // references only
		return nil
	}
	// The partition's locations join other collections in shuffles: in elements of a
	// bounded size.
	elem.Split(locs, elem.LocSize, func(run []elem.IDLoc) { emit(part, elem.LocBatch{Items: run}) })
	return nil
}

// features is what featurizing one document yields for the later stages.
type features struct {
	set                        elem.SetKey
	bandKeys                   []uint64
	shingles                   int64
	capped                     bool
	shingleNanos, minhashNanos int64
	hashes                     []uint64         // the set, in the caller's scratch memory
	lookup                     []index.QuerySet // the set for each Lookup index
}

// featurize normalizes, shingles, hashes, signs and bands one document. sig (len
// num_perm) and scratch are the caller's scratch memory; the result keeps neither.
// sh does not cap (shingleset.Config.Full): a set larger than maxShingles is only
// counted as capped, for the index rows that do cap it.
func featurize(sh *shingleset.Shingler, maxShingles int, signer *minhash.Signer, bands, rows int, contain *lsh.ContainmentScheme, sig []uint64, scratch *shingleset.Scratch, d record.Doc) features {
	start := time.Now()
	hashes, _ := elem.DocSet(sh, scratch, d)
	r := features{capped: maxShingles > 0 && len(hashes) > maxShingles, shingles: int64(len(hashes)), hashes: hashes}
	r.set = elem.SetKey{Hash: shingle.SetHash(hashes), Check: shingle.SetHashSeed(hashes, checkSeed), ID: d.ID,
		Length: elem.RuneCount(d.Text)}
	signStart := time.Now()
	r.shingleNanos = int64(signStart.Sub(start))
	signer.SignInto(sig, hashes)
	if contain != nil {
		r.bandKeys = contain.AppendSampleKeys(contain.AppendKeys(nil, sig, len(hashes)), hashes)
		r.minhashNanos = int64(time.Since(signStart))
		return r
	}
	r.bandKeys = make([]uint64, bands)
	for band := range r.bandKeys {
		r.bandKeys[band] = lsh.BandKey(sig, band, rows)
	}
	r.minhashNanos = int64(time.Since(signStart))
	return r
}

// FeaturizeFn, the part of SignFn that featurizes (not a DoFn of its own), turns a
// document into what the later stages need, in one pass: normalize,
// shingle, hash, sign, band. It sends the set's fingerprints to their partition (where
// exact duplicates meet) and one entry per band to the band key's partition (where
// candidates meet). The shingle set itself is not kept: verification re-reads the few
// candidates it needs, which costs far less than shuffling every document's set.
//
// The work runs on a pool of one goroutine per core (a one-file corpus is one bundle
// on Prism, so this is what keeps every core busy) and the results come back in input
// order; they are emitted in batches per partition, not one element per band.
//
// With SpillDir set (workers on this machine: --band-spill), the band entries,
// the job's largest shuffle by far, and the set keys, one per document, go to local
// files by partition (internal/spill) and only a reference per partition is emitted.
type FeaturizeFn struct {
	Shingle    shingleset.Config
	Scheme     string
	Seed       int64
	NumPerm    int
	Bands      int
	Rows       int
	Partitions int
	SpillDir   string
	Lookup     []LookupRef
	// Containment: see Options.
	Containment *lsh.ContainmentScheme

	pool     *ordered.Pool[record.Doc, features]
	indexes  []*index.Segments
	lookups  *lookups    // the bundle's documents waiting for lookup in indexes
	edges    []elem.Edge // the bundle's edges to indexed documents
	err      error       // the bundle's first lookup error
	sets     *batch.ByPartition[elem.SetKey]
	bands    *batch.ByPartition[elem.BandEntry]
	spill    elem.Spiller  // band entries
	setSpill elem.Spiller  // set keys
	count    featureCounts // the bundle's counter sums
}

// featureCounts sums counts over a bundle.
type featureCounts struct {
	shingles, capped, empty, shingleNanos, minhashNanos, lookupEdges int64
}

func (f *FeaturizeFn) Setup() error {
	sh, err := f.Shingle.Full().Shingler()
	if err != nil {
		return err
	}
	signer, err := minhash.NewSigner(minhash.Scheme(f.Scheme), f.Seed, f.NumPerm)
	if err != nil {
		return err
	}
	if f.indexes, err = openLookups(context.Background(), f.Lookup); err != nil {
		return err
	}
	f.lookups = newLookups(f.Lookup, f.indexes)
	f.pool = ordered.New(runtime.GOMAXPROCS(0), featurizeChunk, func() func(record.Doc) features {
		sig, scratch := make([]uint64, f.NumPerm), &shingleset.Scratch{}
		return func(d record.Doc) features {
			r := featurize(sh, f.Shingle.MaxShingles, signer, f.Bands, f.Rows, f.Containment, sig, scratch, d)
			if len(f.indexes) > 0 {
				// Index rows hold capped sets: a document over the cap is looked up
				// by the same bottom-k sample.
				if r.capped {
					hashsort.Uint64s(r.hashes)
					r.hashes, _ = shingleset.Cap(r.hashes, f.Shingle.MaxShingles)
				}
				r.lookup = f.lookups.prepare(r.hashes)
			}
			r.hashes = nil
			return r
		}
	})
	f.sets = batch.New[elem.SetKey](f.Partitions, elem.BatchItems)
	f.bands = batch.New[elem.BandEntry](f.Partitions, elem.BatchItems)
	f.spill = elem.Spiller{Dir: f.SpillDir, Kind: "bands"}
	f.setSpill = elem.Spiller{Dir: f.SpillDir, Kind: "sets"}
	return nil
}

func (f *FeaturizeFn) Teardown() {
	if f.pool != nil {
		f.pool.Close()
	}
	for _, s := range f.indexes {
		s.Close()
	}
}

// featurizeChunk documents go to a worker at a time.
const featurizeChunk = 64

// checkSeed seeds the second set fingerprint; any constant other than 0 (SetHash's).
const checkSeed = 0x6e656172647570

func (f *FeaturizeFn) ProcessElement(d record.Doc, emitSet func(int, elem.SetBatch), emitBand func(int, elem.BandBatch), emitEdge func(int, elem.EdgeBatch), _ func(tally.Count)) {
	f.pool.Add(d, func(r features) { f.collect(r, emitSet, emitBand, emitEdge) })
}

func (f *FeaturizeFn) FinishBundle(ctx context.Context, emitSet func(int, elem.SetBatch), emitBand func(int, elem.BandBatch), emitEdge func(int, elem.EdgeBatch), emitCount func(tally.Count)) error {
	f.pool.Flush(func(r features) { f.collect(r, emitSet, emitBand, emitEdge) })
	f.runLookups(emitEdge)
	if f.err != nil {
		err := f.err
		f.err = nil
		f.lookups.reset()
		return err
	}
	if len(f.edges) > 0 {
		emitEdge(0, elem.EdgeBatch{Items: f.edges})
		f.edges = nil
	}
	f.sets.Flush(func(p int, items []elem.SetKey) { emitSet(p, elem.SetBatch{Items: items}) })
	f.bands.Flush(func(p int, items []elem.BandEntry) { emitBand(p, elem.BandBatch{Items: items}) })
	// Both files are closed whatever the other's outcome: the next bundle starts new ones.
	err := errors.Join(f.spill.Close(func(p int, ref string) { emitBand(p, elem.BandBatch{Spilled: []string{ref}}) }),
		f.setSpill.Close(func(p int, ref string) { emitSet(p, elem.SetBatch{Spilled: []string{ref}}) }))
	if err != nil {
		return err
	}
	c := f.count
	var counts tally.Bundle
	counts.Add("capped_documents", c.capped)
	counts.Add("shingles", c.shingles)
	counts.Add("empty_documents", c.empty)
	counts.Add("index_verified_pairs", c.lookupEdges)
	counts.Emit(emitCount)
	shingleNanos.Inc(ctx, c.shingleNanos)
	minhashNanos.Inc(ctx, c.minhashNanos)
	f.count = featureCounts{}
	return nil
}

// collect adds one document's results to the bundle's batches and counter sums.
func (f *FeaturizeFn) collect(r features, emitSet func(int, elem.SetBatch), emitBand func(int, elem.BandBatch), emitEdge func(int, elem.EdgeBatch)) {
	key := r.set
	if r.lookup != nil && f.err == nil {
		full, err := f.lookups.add(key, r.lookup, r.bandKeys)
		if f.err = err; full {
			f.runLookups(emitEdge)
		}
	}
	if p := elem.PartOfHash(key.Hash, f.Partitions); f.setSpill.Dir != "" {
		elem.SpillItems(&f.setSpill, elem.Sets, p, key)
	} else {
		f.sets.Add(p, key, func(p int, items []elem.SetKey) { emitSet(p, elem.SetBatch{Items: items}) })
	}
	for _, bk := range r.bandKeys {
		p, be := elem.PartOfHash(bk, f.Partitions), elem.BandEntry{Key: bk, Hash: key.Hash, ID: key.ID}
		if f.spill.Dir != "" {
			// Encoded straight into the partition's spill buffer: no batch to grow, no copy.
			elem.SpillItems(&f.spill, elem.Bands, p, be)
			continue
		}
		f.bands.Add(p, be, func(p int, items []elem.BandEntry) { emitBand(p, elem.BandBatch{Items: items}) })
	}
	if r.capped {
		f.count.capped++
	}
	if r.shingles == 0 {
		f.count.empty++
	}
	f.count.shingles += r.shingles
	f.count.shingleNanos += r.shingleNanos
	f.count.minhashNanos += r.minhashNanos
	elem.Progress.Stage.Store("shingle+minhash")
	elem.Progress.Shingled.Add(1)
}

// runLookups looks up the pending documents and adds their edges to indexed documents
// to the bundle's, emitting them in batches.
func (f *FeaturizeFn) runLookups(emitEdge func(int, elem.EdgeBatch)) {
	if f.err != nil {
		return
	}
	f.err = f.lookups.run(func(e elem.Edge) {
		f.count.lookupEdges++
		if f.edges = append(f.edges, e); len(f.edges) >= elem.BatchItems {
			emitEdge(0, elem.EdgeBatch{Items: f.edges})
			f.edges = nil
		}
	})
}

// collapseFn joins each document to the smallest id with an identical shingle set by a
// similarity-1.0 edge, so exact duplicates never need verifying and LSH buckets can keep
// one member per set. Sets are equal when both 64-bit fingerprints are (a false match
// among a billion distinct sets is about 10⁻²⁰ likely).
// Spilled keys are read back here, one partition at a time.
type collapseFn struct{ counts tally.Bundle }

func (f *collapseFn) ProcessElement(_ int, batch elem.SetBatch, emitEdges func(int, elem.EdgeBatch), _ func(tally.Count)) error {
	keys, err := elem.Sets.Items(batch)
	if err != nil {
		return err
	}
	slices.SortFunc(keys, func(a, b elem.SetKey) int {
		switch { // not cmp.Or, which would compare the ids every time
		case a.Hash != b.Hash:
			return cmp.Compare(a.Hash, b.Hash)
		case a.Check != b.Check:
			return cmp.Compare(a.Check, b.Check)
		}
		return cmp.Compare(a.ID, b.ID)
	})
	var edges []elem.Edge
	rep := 0
	for i := 1; i < len(keys); i++ {
		if keys[i].Hash != keys[rep].Hash || keys[i].Check != keys[rep].Check {
			rep = i
			continue
		}
		edges = append(edges, elem.Edge{U: keys[rep].ID, V: keys[i].ID, Sim: 1, ULen: keys[rep].Length, VLen: keys[i].Length})
	}
	f.counts.Add("exact_duplicates", int64(len(edges)))
	if len(edges) > 0 {
		emitEdges(0, elem.EdgeBatch{Items: edges})
	}
	return nil
}

func (f *collapseFn) FinishBundle(_ func(int, elem.EdgeBatch), emitCount func(tally.Count)) {
	f.counts.Emit(emitCount)
}
