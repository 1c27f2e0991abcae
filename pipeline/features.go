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
	register.DoFn2x0[record.Doc, func(int, []IDLoc)](&locateFn{})
	register.Function4x1(checkUniqueIDs)
	register.DoFn4x0[context.Context, record.Doc, func(*int) bool, func(int, []Feature)](&featurizeFn{})
	register.DoFn5x0[context.Context, int, []Feature, func(int, []Feature), func(int, []Edge)](&collapseFn{})
	register.DoFn3x1[context.Context, Feature, func(int, []BandEntry), error](&signFn{})
	register.DoFn4x0[context.Context, int, []BandEntry, func(int, []Edge)](&bucketFn{})
	register.Emitter2[int, []IDLoc]()
	register.Emitter2[int, []Feature]()
	register.Emitter2[int, []BandEntry]()
	register.Emitter2[int, []Edge]()
	register.Function3x0(unpackFeatures)
	register.Emitter1[Feature]()
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

func (f *locateFn) ProcessElement(d record.Doc, emit func(int, []IDLoc)) {
	progress.read.Add(1)
	emit(partOfString(d.ID, f.Partitions), []IDLoc{{ID: d.ID, File: d.File, Line: d.Line}})
}

// checkUniqueIDs sorts a partition's locations by id and fails the run when two records
// share an id: every later stage joins by id, so a duplicate would silently merge two
// documents. The empty second output exists only to be a side input of the shingling
// stage, which makes the runner finish this check before any document is shingled.
func checkUniqueIDs(part int, locs []IDLoc, emit func(int, []IDLoc), _ func(int)) error {
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
	emit(part, locs)
	return nil
}

// featurizeFn normalizes and shingles a document and sends it to the partition of its
// shingle set's fingerprint, so exact duplicates meet.
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

// ProcessElement takes the id check as a side input it never reads (see checkUniqueIDs).
func (f *featurizeFn) ProcessElement(ctx context.Context, d record.Doc, _ func(*int) bool, emit func(int, []Feature)) {
	start := time.Now()
	hashes := shingle.Hashes(normalize.Text(d.Text, f.norm), f.opts, f.sum)
	shinglesTotal.Inc(ctx, int64(len(hashes)))
	if len(hashes) == 0 {
		emptyDocuments.Inc(ctx, 1)
	}
	set := shingle.SetHash(hashes)
	emit(partOfHash(set, f.Partitions), []Feature{{ID: d.ID, SetHash: set, Hashes: hashes, Length: int64(utf8.RuneCountInString(d.Text))}})
	shingleNanos.Inc(ctx, int64(time.Since(start)))
	progress.stage.Store("shingle")
	progress.shingled.Add(1)
}

// collapseFn keeps one representative (the smallest id) of each group of documents with
// identical shingle sets and joins the others to it with similarity-1.0 edges, so a
// boilerplate page repeated a million times is signed, bucketed and verified once.
// Fingerprints only group candidates: sets are compared in full, so a fingerprint
// collision can never merge different documents.
type collapseFn struct{ Partitions int }

func (f *collapseFn) ProcessElement(ctx context.Context, _ int, feats []Feature, emitRep func(int, []Feature), emitEdges func(int, []Edge)) {
	slices.SortFunc(feats, func(a, b Feature) int {
		return cmp.Or(cmp.Compare(a.SetHash, b.SetHash), cmp.Compare(a.ID, b.ID))
	})
	var edges []Edge
	for i := 0; i < len(feats); {
		j := i + 1
		for j < len(feats) && feats[j].SetHash == feats[i].SetHash {
			j++
		}
		// feats[i:j] share a fingerprint; each member joins the first earlier one with
		// the very same set, or becomes a representative itself.
		reps := feats[i:i]
		for _, m := range feats[i:j] {
			k := slices.IndexFunc(reps, func(r Feature) bool { return slices.Equal(r.Hashes, m.Hashes) })
			if k < 0 {
				reps = append(reps, m) // in place: reps never overtakes the loop
				continue
			}
			edges = append(edges, Edge{U: reps[k].ID, V: m.ID, Sim: 1, ULen: reps[k].Length, VLen: m.Length})
		}
		for _, r := range reps {
			emitRep(partOfString(r.ID, f.Partitions), []Feature{r})
		}
		i = j
	}
	if len(edges) > 0 {
		exactDuplicates.Inc(ctx, int64(len(edges)))
		emitEdges(0, edges)
	}
}

// signFn computes a representative's MinHash signature and puts it in one bucket per band.
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

func (f *signFn) ProcessElement(ctx context.Context, feat Feature, emit func(int, []BandEntry)) error {
	start := time.Now()
	f.signer.SignInto(f.sig, feat.Hashes)
	minhashNanos.Inc(ctx, int64(time.Since(start)))
	signedDocuments.Inc(ctx, 1)
	for band := 0; band < f.Bands; band++ {
		key := lsh.BandKey(f.sig, band, f.Rows)
		emit(partOfHash(key, f.Partitions), []BandEntry{{Key: key, ID: feat.ID}})
	}
	progress.stage.Store("minhash")
	return nil
}

// bucketFn emits star edges from each bucket's smallest id to every other member: k-1
// candidates for k members, never k². The hub must be the smallest id, not whichever
// member arrives first, or the candidate set (and so the clusters) would depend on the
// runner's ordering.
type bucketFn struct{ Partitions int }

func (f *bucketFn) ProcessElement(ctx context.Context, _ int, entries []BandEntry, emit func(int, []Edge)) {
	start := time.Now()
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
		emit(p, byPart[p])
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
