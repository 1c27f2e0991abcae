package pipeline

import (
	"context"
	"fmt"
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
	register.Function2x0(locate)
	register.Function3x1(checkUniqueID)
	register.DoFn4x0[context.Context, record.Doc, func(*int) bool, func(uint64, Feature)](&featurizeFn{})
	register.DoFn5x0[context.Context, uint64, func(*Feature) bool, func(Feature), func(Edge)](&collapseFn{})
	register.DoFn4x0[context.Context, Feature, func(uint64, string), func(string, Signed)](&signFn{})
	register.Function4x0(bucketEdges)
	register.Emitter2[uint64, Feature]()
	register.Emitter2[uint64, string]()
	register.Emitter2[string, Signed]()
	register.Emitter2[string, string]()
	register.Emitter1[Feature]()
	register.Emitter1[Edge]()
	register.Iter1[int]()
	register.Iter1[Feature]()
	register.Iter1[Loc]()
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
)

// locate keys a document's position by its id.
func locate(d record.Doc, emit func(string, Loc)) {
	progress.read.Add(1)
	emit(d.ID, Loc{File: d.File, Line: d.Line})
}

// checkUniqueID fails the run when two records share an id: every later stage joins by
// id, so a duplicate would silently merge two documents.
func checkUniqueID(id string, locs func(*Loc) bool, emit func(int)) error {
	var first, l Loc
	n := 0
	for locs(&l) {
		n++
		if n == 1 {
			first = l
			continue
		}
		return fmt.Errorf("duplicate id %q: %s:%d and %s:%d (ids must be unique; drop --id-field to generate ids from file:line)",
			id, first.File, first.Line, l.File, l.Line)
	}
	return nil
}

// featurizeFn normalizes and shingles a document and keys it by the fingerprint of its
// shingle-hash set, so exact duplicates meet in one group.
type featurizeFn struct {
	StripPunct bool
	Kind       string
	N          int
	Hash       string

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
	f.norm = normalize.Options{StripPunct: f.StripPunct}
	f.sum = h.Sum64
	return nil
}

// ProcessElement takes the id check as a side input it never reads: that only makes the
// runner finish the check before any document is shingled.
func (f *featurizeFn) ProcessElement(ctx context.Context, d record.Doc, _ func(*int) bool, emit func(uint64, Feature)) {
	start := time.Now()
	hashes := shingle.Hashes(normalize.Text(d.Text, f.norm), f.opts, f.sum)
	shinglesTotal.Inc(ctx, int64(len(hashes)))
	if len(hashes) == 0 {
		emptyDocuments.Inc(ctx, 1)
	}
	emit(shingle.SetHash(hashes), Feature{ID: d.ID, Hashes: hashes, Length: int64(utf8.RuneCountInString(d.Text))})
	shingleNanos.Inc(ctx, int64(time.Since(start)))
	progress.stage.Store("shingle")
	progress.shingled.Add(1)
}

// collapseFn turns a group of documents with identical shingle sets into one
// representative (the smallest id, so the choice does not depend on iteration order)
// plus similarity-1.0 edges. It reads the group once and holds one Feature at a time, so
// a boilerplate page repeated millions of times streams through. The edges all start at
// the first member seen; which member that is cannot change the clusters, because the
// members are identical and connected components label by the smallest id.
type collapseFn struct{}

func (collapseFn) ProcessElement(ctx context.Context, _ uint64, members func(*Feature) bool, emitRep func(Feature), emitEdge func(Edge)) {
	var f, rep Feature
	var hub string
	n := 0
	for members(&f) {
		n++
		if n == 1 {
			hub, rep = f.ID, f
			continue
		}
		emitEdge(orderedEdge(hub, f.ID, 1.0))
		if f.ID < rep.ID {
			rep = f
		}
	}
	if n > 1 {
		exactDuplicates.Inc(ctx, int64(n-1))
	}
	emitRep(rep)
}

func orderedEdge(a, b string, sim float64) Edge {
	if b < a {
		a, b = b, a
	}
	return Edge{U: a, V: b, Sim: sim}
}

// signFn computes a representative's MinHash signature and emits one bucket key per band.
type signFn struct {
	Scheme  string
	Seed    int64
	NumPerm int
	Bands   int
	Rows    int

	signer *minhash.Signer
}

func (f *signFn) Setup() error {
	s, err := minhash.NewSigner(minhash.Scheme(f.Scheme), f.Seed, f.NumPerm)
	f.signer = s
	return err
}

func (f *signFn) ProcessElement(ctx context.Context, feat Feature, emitBand func(uint64, string), emitSigned func(string, Signed)) {
	start := time.Now()
	sig := make([]uint64, f.NumPerm)
	f.signer.SignInto(sig, feat.Hashes)
	minhashNanos.Inc(ctx, int64(time.Since(start)))
	signedDocuments.Inc(ctx, 1)
	for band := 0; band < f.Bands; band++ {
		emitBand(lsh.BandKey(sig, band, f.Rows), feat.ID)
	}
	emitSigned(feat.ID, Signed{ID: feat.ID, Sig: sig, Hashes: feat.Hashes})
	progress.stage.Store("minhash")
}

// bucketEdges emits star edges from a bucket's smallest id to every other member: k-1
// candidates for k members, never k². The hub must be the smallest id, not whichever
// member arrives first, or the candidate set (and so the clusters) would depend on the
// runner's ordering. The Go SDK offers GroupByKey values to a main input only as a
// single-pass iterator, so the bucket's ids (ids only, never documents: exact duplicates
// were collapsed before signing) are held while the edges are emitted.
func bucketEdges(ctx context.Context, _ uint64, ids func(*string) bool, emit func(string, string)) {
	var members []string
	var id string
	min := 0
	for ids(&id) {
		if len(members) > 0 && id < members[min] {
			min = len(members)
		}
		members = append(members, id)
	}
	if len(members) < 2 {
		return
	}
	bucketsShared.Inc(ctx, 1)
	bucketEdgesTotal.Inc(ctx, int64(len(members)-1))
	for i, id := range members {
		if i != min {
			emit(members[min], id)
		}
	}
}
