package pipeline

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/internal/batch"
	"github.com/neardup/neardup/internal/ordered"
	"github.com/neardup/neardup/record"
	"github.com/neardup/neardup/transforms/lsh"
	"github.com/neardup/neardup/transforms/minhash"
	"github.com/neardup/neardup/transforms/shingle"
	"github.com/neardup/neardup/transforms/shingleset"
)

func init() {
	register.DoFn2x0[record.Doc, func(int, locBatch)](&locateFn{})
	register.Function4x1(checkUniqueIDs)
	register.DoFn3x0[record.Doc, func(int, setBatch), func(int, bandBatch)](&featurizeFn{})
	register.DoFn4x0[context.Context, int, setBatch, func(int, edgeBatch)](&collapseFn{})
	register.Emitter2[int, locBatch]()
	register.Emitter2[int, setBatch]()
	register.Emitter2[int, bandBatch]()
	register.Emitter2[int, edgeBatch]()
}

var (
	shinglesTotal   = beam.NewCounter(metricsNS, "shingles")
	emptyDocuments  = beam.NewCounter(metricsNS, "empty_documents")
	cappedDocuments = beam.NewCounter(metricsNS, "capped_documents")
	exactDuplicates = beam.NewCounter(metricsNS, "exact_duplicates")
	shingleNanos    = beam.NewCounter(metricsNS, "shingle_nanos")
	minhashNanos    = beam.NewCounter(metricsNS, "minhash_nanos")
)

// locateFn keys a document's position by its id's partition, in batches per partition.
type locateFn struct {
	Partitions int

	locs *batch.ByPartition[IDLoc]
}

func (f *locateFn) Setup() { f.locs = batch.New[IDLoc](f.Partitions, batchItems) }

func (f *locateFn) ProcessElement(d record.Doc, emit func(int, locBatch)) {
	progress.read.Add(1)
	f.locs.Add(partOfString(d.ID, f.Partitions), IDLoc{ID: d.ID, File: d.File, Line: d.Line},
		func(p int, items []IDLoc) { emit(p, locBatch{items}) })
}

func (f *locateFn) FinishBundle(emit func(int, locBatch)) {
	f.locs.Flush(func(p int, items []IDLoc) { emit(p, locBatch{items}) })
}

// checkUniqueIDs sorts a partition's locations by id and fails the run when two records
// share an id: every later stage joins by id, so a duplicate would silently merge two
// documents. The second output stays empty: LSHBuckets flattens it into the band entries
// it groups, so that no bucket, and no candidate pair, exists before this check is done.
func checkUniqueIDs(part int, batch locBatch, emit func(int, locBatch), _ func(int, bandBatch)) error {
	locs := batch.Items
	slices.SortFunc(locs, func(a, b IDLoc) int { return cmp.Compare(a.ID, b.ID) })
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
	emit(part, batch)
	return nil
}

// Shingler and ShingleConfig live in transforms/shingleset, shared with the report.
type (
	Shingler      = shingleset.Shingler
	ShingleConfig = shingleset.Config
)

// features is what featurizing one document yields for the later stages.
type features struct {
	set                        SetKey
	bandKeys                   []uint64
	shingles                   int64
	capped                     bool
	shingleNanos, minhashNanos int64
}

// featurize normalizes, shingles, hashes, signs and bands one document. sig (len
// num_perm) and scratch are the caller's scratch memory; the result keeps neither.
func featurize(sh *Shingler, signer *minhash.Signer, bands, rows int, sig []uint64, scratch *shingleset.Scratch, d record.Doc) features {
	start := time.Now()
	hashes, capped := docSet(sh, scratch, d)
	r := features{capped: capped, shingles: int64(len(hashes))}
	r.set = SetKey{Hash: shingle.SetHash(hashes), Check: shingle.SetHashSeed(hashes, checkSeed), ID: d.ID,
		Length: runeCount(d.Text)}
	signStart := time.Now()
	r.shingleNanos = int64(signStart.Sub(start))
	signer.SignInto(sig, hashes)
	r.bandKeys = make([]uint64, bands)
	for band := range r.bandKeys {
		r.bandKeys[band] = lsh.BandKey(sig, band, rows)
	}
	r.minhashNanos = int64(time.Since(signStart))
	return r
}

// runeCount is utf8.RuneCountInString (an invalid byte counts as one rune), eight bytes
// at a time: an ASCII prefix is skipped, and past it, in valid UTF-8, which is what the
// sources hand on (they replace invalid bytes), the runes are the bytes that do not
// continue one (10xxxxxx). On Cyrillic text that is twice the speed of decoding each
// rune.
func runeCount(s string) int64 {
	word := func(i int) uint64 { return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8)) }
	i := 0
	for i+8 <= len(s) && word(i)&0x8080808080808080 == 0 {
		i += 8
	}
	if !utf8.ValidString(s[i:]) {
		return int64(i + utf8.RuneCountInString(s[i:]))
	}
	n := int64(len(s))
	for ; i+8 <= len(s); i += 8 {
		x := word(i)
		n -= int64(bits.OnesCount64(x &^ (x << 1) & 0x8080808080808080)) // bytes 10xxxxxx
	}
	for ; i < len(s); i++ {
		if s[i]&0xC0 == 0x80 {
			n--
		}
	}
	return n
}

// featurizeFn turns a document into what the later stages need, in one pass: normalize,
// shingle, hash, sign, band. It sends the set's fingerprints to their partition (where
// exact duplicates meet) and one entry per band to the band key's partition (where
// candidates meet). The shingle set itself is not kept: verification re-reads the few
// candidates it needs, which costs far less than shuffling every document's set.
//
// The work runs on a pool of one goroutine per core (a one-file corpus is one bundle
// on Prism, so this is what keeps every core busy) and the results come back in input
// order; they are emitted in batches per partition, not one element per band.
//
// With SpillDir set (workers on this machine: see Config.BandSpill), the band entries,
// the job's largest shuffle by far, go to a local file by partition (internal/spill) and
// only a reference per partition is emitted.
type featurizeFn struct {
	Shingle    ShingleConfig
	Scheme     string
	Seed       int64
	NumPerm    int
	Bands      int
	Rows       int
	Partitions int
	SpillDir   string

	pool  *ordered.Pool[record.Doc, features]
	sets  *batch.ByPartition[SetKey]
	bands *batch.ByPartition[BandEntry]
	spill spiller
	count featureCounts // the bundle's counter sums
}

// featureCounts sums counters over a bundle: one Inc per bundle, not per document.
type featureCounts struct{ shingles, capped, empty, shingleNanos, minhashNanos int64 }

func (f *featurizeFn) Setup() error {
	sh, err := f.Shingle.Shingler()
	if err != nil {
		return err
	}
	signer, err := minhash.NewSigner(minhash.Scheme(f.Scheme), f.Seed, f.NumPerm)
	if err != nil {
		return err
	}
	f.pool = ordered.New(runtime.GOMAXPROCS(0), featurizeChunk, func() func(record.Doc) features {
		sig, scratch := make([]uint64, f.NumPerm), &shingleset.Scratch{}
		return func(d record.Doc) features { return featurize(sh, signer, f.Bands, f.Rows, sig, scratch, d) }
	})
	f.sets = batch.New[SetKey](f.Partitions, batchItems)
	f.bands = batch.New[BandEntry](f.Partitions, batchItems)
	f.spill = spiller{Dir: f.SpillDir, Kind: "bands"}
	return nil
}

func (f *featurizeFn) Teardown() {
	if f.pool != nil {
		f.pool.Close()
	}
}

// featurizeChunk documents go to a worker at a time; batchItems items make one emitted
// element at most.
const (
	featurizeChunk = 64
	batchItems     = 4096
)

// checkSeed seeds the second set fingerprint; any constant other than 0 (SetHash's).
const checkSeed = 0x6e656172647570

func (f *featurizeFn) ProcessElement(d record.Doc, emitSet func(int, setBatch), emitBand func(int, bandBatch)) {
	f.pool.Add(d, func(r features) { f.collect(r, emitSet, emitBand) })
}

func (f *featurizeFn) FinishBundle(ctx context.Context, emitSet func(int, setBatch), emitBand func(int, bandBatch)) error {
	f.pool.Flush(func(r features) { f.collect(r, emitSet, emitBand) })
	f.sets.Flush(func(p int, items []SetKey) { emitSet(p, setBatch{items}) })
	f.bands.Flush(func(p int, items []BandEntry) { emitBand(p, bandBatch{Items: items}) })
	if err := f.spill.close(func(p int, ref string) { emitBand(p, bandBatch{Spilled: []string{ref}}) }); err != nil {
		return err
	}
	c := f.count
	cappedDocuments.Inc(ctx, c.capped)
	shinglesTotal.Inc(ctx, c.shingles)
	emptyDocuments.Inc(ctx, c.empty)
	shingleNanos.Inc(ctx, c.shingleNanos)
	minhashNanos.Inc(ctx, c.minhashNanos)
	f.count = featureCounts{}
	return nil
}

// collect adds one document's results to the bundle's batches and counter sums.
func (f *featurizeFn) collect(r features, emitSet func(int, setBatch), emitBand func(int, bandBatch)) {
	key := r.set
	f.sets.Add(partOfHash(key.Hash, f.Partitions), key, func(p int, items []SetKey) { emitSet(p, setBatch{items}) })
	for _, bk := range r.bandKeys {
		p, be := partOfHash(bk, f.Partitions), BandEntry{Key: bk, Set: key.Hash, Chk: key.Check, ID: key.ID}
		if f.spill.Dir != "" {
			// Encoded straight into the partition's spill buffer: no batch to grow, no copy.
			f.spill.extend(p, func(b []byte) []byte { return appendBand(b, be) })
			continue
		}
		f.bands.Add(p, be, func(p int, items []BandEntry) { emitBand(p, bandBatch{Items: items}) })
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
	progress.stage.Store("shingle+minhash")
	progress.shingled.Add(1)
}

// collapseFn joins each document to the smallest id with an identical shingle set by a
// similarity-1.0 edge, so exact duplicates never need verifying and LSH buckets can keep
// one member per set. Sets are equal when both 64-bit fingerprints are (a false match
// among a billion distinct sets is about 10⁻²⁰ likely).
type collapseFn struct{}

func (collapseFn) ProcessElement(ctx context.Context, _ int, batch setBatch, emitEdges func(int, edgeBatch)) {
	keys := batch.Items
	slices.SortFunc(keys, func(a, b SetKey) int {
		switch { // not cmp.Or, which would compare the ids every time
		case a.Hash != b.Hash:
			return cmp.Compare(a.Hash, b.Hash)
		case a.Check != b.Check:
			return cmp.Compare(a.Check, b.Check)
		}
		return cmp.Compare(a.ID, b.ID)
	})
	var edges []Edge
	rep := 0
	for i := 1; i < len(keys); i++ {
		if keys[i].Hash != keys[rep].Hash || keys[i].Check != keys[rep].Check {
			rep = i
			continue
		}
		edges = append(edges, Edge{U: keys[rep].ID, V: keys[i].ID, Sim: 1, ULen: keys[rep].Length, VLen: keys[i].Length})
	}
	if len(edges) > 0 {
		exactDuplicates.Inc(ctx, int64(len(edges)))
		emitEdges(0, edgeBatch{edges})
	}
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
