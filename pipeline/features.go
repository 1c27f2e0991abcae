package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/record"
	"github.com/neardup/neardup/transforms/lsh"
	"github.com/neardup/neardup/transforms/minhash"
	"github.com/neardup/neardup/transforms/normalize"
	"github.com/neardup/neardup/transforms/shingle"
)

func init() {
	register.DoFn2x0[record.Doc, func(int, locBatch)](&locateFn{})
	register.Function4x1(checkUniqueIDs)
	register.DoFn4x0[context.Context, record.Doc, func(int, featureBatch), func(int, setBatch)](&featurizeFn{})
	register.DoFn6x0[context.Context, int, setBatch, func(*int) bool, func(int, idBatch), func(int, edgeBatch)](&collapseFn{})
	register.DoFn5x1[context.Context, int, func(*featureBatch) bool, func(*idBatch) bool, func(int, bandBatch), error](&signFn{})
	register.Emitter2[int, setBatch]()
	register.Emitter2[int, idBatch]()
	register.Iter1[idBatch]()
	register.DoFn4x0[context.Context, int, bandBatch, func(int, edgeBatch)](&bucketFn{})
	register.Emitter2[int, locBatch]()
	register.Emitter2[int, featureBatch]()
	register.Emitter2[int, bandBatch]()
	register.Emitter2[int, edgeBatch]()
	register.Emitter1[int]()
	register.Iter1[int]()
}

var (
	shinglesTotal    = beam.NewCounter(metricsNS, "shingles")
	emptyDocuments   = beam.NewCounter(metricsNS, "empty_documents")
	exactDuplicates  = beam.NewCounter(metricsNS, "exact_duplicates")
	signedDocuments  = beam.NewCounter(metricsNS, "signed_documents")
	bucketsShared    = beam.NewCounter(metricsNS, "shared_buckets")
	bucketEdgesTotal = beam.NewCounter(metricsNS, "bucket_edges")
	shingleNanos     = beam.NewCounter(metricsNS, "shingle_nanos")
	minhashNanos     = beam.NewCounter(metricsNS, "minhash_nanos")
	lshNanos         = beam.NewCounter(metricsNS, "lsh_nanos")
)

// locateFn keys a document's position by its id's partition.
type locateFn struct{ Partitions int }

func (f *locateFn) ProcessElement(d record.Doc, emit func(int, locBatch)) {
	progress.read.Add(1)
	emit(partOfString(d.ID, f.Partitions), locBatch{[]IDLoc{{ID: d.ID, File: d.File, Line: d.Line}}})
}

// checkUniqueIDs sorts a partition's locations by id and fails the run when two records
// share an id: every later stage joins by id, so a duplicate would silently merge two
// documents. The empty second output exists only to be a side input of the shingling
// stage, which makes the runner finish this check before any document is shingled.
func checkUniqueIDs(part int, batch locBatch, emit func(int, locBatch), _ func(int)) error {
	locs := batch.Items
	slices.SortFunc(locs, func(a, b IDLoc) int { return cmp.Compare(a.ID, b.ID) })
	for i := 1; i < len(locs); i++ {
		if a, b := locs[i-1], locs[i]; a.ID == b.ID {
			first, second := a, b
			if cmp.Or(cmp.Compare(b.File, a.File), cmp.Compare(b.Line, a.Line)) < 0 {
				first, second = b, a
			}
			return fmt.Errorf("duplicate id %q: %s:%d and %s:%d (ids must be unique; drop --id-field to generate ids from file:line)",
				a.ID, first.File, first.Line, second.File, second.Line)
		}
	}
	emit(part, batch)
	return nil
}

// featurizeFn normalizes and shingles a document. It sends the shingle set to the id's
// partition, where signing and verification look it up, and the set's fingerprints to
// their own partition, where exact duplicates meet.
type featurizeFn struct {
	StripPunct bool
	Kind       string
	N          int
	Hash       string
	Partitions int

	opts shingle.Options
	norm normalize.Options
	sum  func([]byte) uint64
}

func (f *featurizeFn) Setup() error {
	kind, err := shingle.ParseKind(f.Kind)
	if err != nil {
		return err
	}
	h, err := minhash.ParseHashFunc(f.Hash)
	if err != nil {
		return err
	}
	f.opts = shingle.Options{Kind: kind, N: f.N}
	if err := f.opts.Validate(); err != nil {
		return err
	}
	f.norm = normalize.Options{StripPunct: f.StripPunct}
	f.sum = h.Sum64
	return nil
}

// checkSeed seeds the second set fingerprint; any constant other than 0 (SetHash's).
const checkSeed = 0x6e656172647570

func (f *featurizeFn) ProcessElement(ctx context.Context, d record.Doc, emitFeat func(int, featureBatch), emitSet func(int, setBatch)) {
	start := time.Now()
	hashes := shingle.Hashes(normalize.Text(d.Text, f.norm), f.opts, f.sum)
	shinglesTotal.Inc(ctx, int64(len(hashes)))
	if len(hashes) == 0 {
		emptyDocuments.Inc(ctx, 1)
	}
	length := int64(utf8.RuneCountInString(d.Text))
	key := SetKey{Hash: shingle.SetHash(hashes), Check: shingle.SetHashSeed(hashes, checkSeed), ID: d.ID, Length: length}
	emitFeat(partOfString(d.ID, f.Partitions), featureBatch{[]Feature{{ID: d.ID, Hashes: hashes, Length: length}}})
	emitSet(partOfHash(key.Hash, f.Partitions), setBatch{[]SetKey{key}})
	shingleNanos.Inc(ctx, int64(time.Since(start)))
	progress.stage.Store("shingle")
	progress.shingled.Add(1)
}

// collapseFn keeps one representative (the smallest id) of each group of documents with
// identical shingle sets and joins the others to it with similarity-1.0 edges, so a
// boilerplate page repeated a million times is signed, bucketed and verified once. Sets
// are equal when both 64-bit fingerprints are (a false match among a billion distinct
// sets is about 10⁻²⁰ likely). It takes the id check as a side input it never reads
// (see checkUniqueIDs), so no signature is computed before ids are known to be unique.
type collapseFn struct{ Partitions int }

func (f *collapseFn) ProcessElement(ctx context.Context, _ int, batch setBatch, _ func(*int) bool, emitRep func(int, idBatch), emitEdges func(int, edgeBatch)) {
	keys := batch.Items
	slices.SortFunc(keys, func(a, b SetKey) int {
		return cmp.Or(cmp.Compare(a.Hash, b.Hash), cmp.Compare(a.Check, b.Check), cmp.Compare(a.ID, b.ID))
	})
	var edges []Edge
	reps := map[int][]string{}
	for i, k := range keys {
		if i > 0 && keys[i-1].Hash == k.Hash && keys[i-1].Check == k.Check {
			continue
		}
		j := i + 1
		for j < len(keys) && keys[j].Hash == k.Hash && keys[j].Check == k.Check {
			edges = append(edges, Edge{U: k.ID, V: keys[j].ID, Sim: 1, ULen: k.Length, VLen: keys[j].Length})
			j++
		}
		p := partOfString(k.ID, f.Partitions)
		reps[p] = append(reps[p], k.ID)
	}
	for _, p := range sortedKeys(reps) {
		emitRep(p, idBatch{reps[p]})
	}
	if len(edges) > 0 {
		exactDuplicates.Inc(ctx, int64(len(edges)))
		emitEdges(0, edgeBatch{edges})
	}
}

// signFn computes the representatives' MinHash signatures in one id partition and puts
// each in one bucket per band.
type signFn struct {
	Scheme     string
	Seed       int64
	NumPerm    int
	Bands      int
	Rows       int
	Partitions int

	signer *minhash.Signer
	sig    []uint64
}

func (f *signFn) Setup() error {
	s, err := minhash.NewSigner(minhash.Scheme(f.Scheme), f.Seed, f.NumPerm)
	f.signer, f.sig = s, make([]uint64, f.NumPerm)
	return err
}

func (f *signFn) ProcessElement(ctx context.Context, _ int, featIter func(*featureBatch) bool, repIter func(*idBatch) bool, emit func(int, bandBatch)) error {
	reps := map[string]bool{}
	var ids idBatch
	for repIter(&ids) {
		for _, id := range ids.Items {
			reps[id] = true
		}
	}
	if len(reps) == 0 {
		return nil
	}
	start := time.Now()
	byPart := map[int][]BandEntry{}
	var feats featureBatch
	signed := 0
	for featIter(&feats) {
		for _, feat := range feats.Items {
			if !reps[feat.ID] {
				continue
			}
			signed++
			f.signer.SignInto(f.sig, feat.Hashes)
			for band := 0; band < f.Bands; band++ {
				key := lsh.BandKey(f.sig, band, f.Rows)
				p := partOfHash(key, f.Partitions)
				byPart[p] = append(byPart[p], BandEntry{Key: key, ID: feat.ID})
			}
		}
	}
	if signed != len(reps) {
		return fmt.Errorf("%d representatives have no shingle set (internal error)", len(reps)-signed)
	}
	signedDocuments.Inc(ctx, int64(signed))
	for _, p := range sortedKeys(byPart) {
		emit(p, bandBatch{byPart[p]})
	}
	minhashNanos.Inc(ctx, int64(time.Since(start)))
	progress.stage.Store("minhash")
	return nil
}

// bucketFn emits star edges from each bucket's smallest id to every other member: k-1
// candidates for k members, never k². The hub must be the smallest id, not whichever
// member arrives first, or the candidate set (and so the clusters) would depend on the
// runner's ordering.
type bucketFn struct{ Partitions int }

func (f *bucketFn) ProcessElement(ctx context.Context, _ int, batch bandBatch, emit func(int, edgeBatch)) {
	start := time.Now()
	entries := batch.Items
	slices.SortFunc(entries, func(a, b BandEntry) int { return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.ID, b.ID)) })
	byPart := map[int][]Edge{}
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].Key == entries[i].Key {
			j++
		}
		if j-i > 1 {
			bucketsShared.Inc(ctx, 1)
			bucketEdgesTotal.Inc(ctx, int64(j-i-1))
			hub := entries[i].ID
			p := partOfString(hub, f.Partitions)
			for _, e := range entries[i+1 : j] {
				byPart[p] = append(byPart[p], Edge{U: hub, V: e.ID})
			}
		}
		i = j
	}
	for _, p := range sortedKeys(byPart) {
		emit(p, edgeBatch{byPart[p]})
	}
	lshNanos.Inc(ctx, int64(time.Since(start)))
	progress.stage.Store("lsh")
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
