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
	"github.com/neardup/neardup/transforms/shingle"
	"github.com/neardup/neardup/transforms/shingleset"
)

func init() {
	register.DoFn2x0[record.Doc, func(int, locBatch)](&locateFn{})
	register.Function4x1(checkUniqueIDs)
	register.DoFn4x0[context.Context, record.Doc, func(int, setBatch), func(int, bandBatch)](&featurizeFn{})
	register.DoFn4x0[context.Context, int, setBatch, func(int, edgeBatch)](&collapseFn{})
	register.DoFn5x0[context.Context, int, bandBatch, func(*int) bool, func(int, edgeBatch)](&bucketFn{})
	register.Emitter2[int, locBatch]()
	register.Emitter2[int, setBatch]()
	register.Emitter2[int, bandBatch]()
	register.Emitter2[int, edgeBatch]()
	register.Emitter1[int]()
	register.Iter1[int]()
}

var (
	shinglesTotal    = beam.NewCounter(metricsNS, "shingles")
	emptyDocuments   = beam.NewCounter(metricsNS, "empty_documents")
	cappedDocuments  = beam.NewCounter(metricsNS, "capped_documents")
	exactDuplicates  = beam.NewCounter(metricsNS, "exact_duplicates")
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
// documents. The empty second output exists only to be a side input of the bucketing
// stage, which makes the runner finish this check before any candidate pair exists.
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

// Shingler and ShingleConfig live in transforms/shingleset, shared with the report.
type (
	Shingler      = shingleset.Shingler
	ShingleConfig = shingleset.Config
)

// featurizeFn turns a document into what the later stages need, in one pass: normalize,
// shingle, hash, sign, band. It sends the set's fingerprints to their partition (where
// exact duplicates meet) and one entry per band to the band key's partition (where
// candidates meet). The shingle set itself is not kept: verification re-reads the few
// candidates it needs, which costs far less than shuffling every document's set.
type featurizeFn struct {
	Shingle    ShingleConfig
	Scheme     string
	Seed       int64
	NumPerm    int
	Bands      int
	Rows       int
	Partitions int

	sh     *Shingler
	signer *minhash.Signer
	sig    []uint64
}

func (f *featurizeFn) Setup() error {
	var err error
	if f.sh, err = f.Shingle.Shingler(); err != nil {
		return err
	}
	f.signer, err = minhash.NewSigner(minhash.Scheme(f.Scheme), f.Seed, f.NumPerm)
	f.sig = make([]uint64, f.NumPerm)
	return err
}

// checkSeed seeds the second set fingerprint; any constant other than 0 (SetHash's).
const checkSeed = 0x6e656172647570

func (f *featurizeFn) ProcessElement(ctx context.Context, d record.Doc, emitSet func(int, setBatch), emitBand func(int, bandBatch)) {
	start := time.Now()
	hashes, capped := f.sh.Hashes(d.Text)
	if capped {
		cappedDocuments.Inc(ctx, 1)
	}
	shinglesTotal.Inc(ctx, int64(len(hashes)))
	if len(hashes) == 0 {
		emptyDocuments.Inc(ctx, 1)
	}
	length := int64(utf8.RuneCountInString(d.Text))
	key := SetKey{Hash: shingle.SetHash(hashes), Check: shingle.SetHashSeed(hashes, checkSeed), ID: d.ID, Length: length}
	emitSet(partOfHash(key.Hash, f.Partitions), setBatch{[]SetKey{key}})
	signStart := time.Now()
	shingleNanos.Inc(ctx, int64(signStart.Sub(start)))

	f.signer.SignInto(f.sig, hashes)
	for band := 0; band < f.Bands; band++ {
		bk := lsh.BandKey(f.sig, band, f.Rows)
		emitBand(partOfHash(bk, f.Partitions), bandBatch{[]BandEntry{{Key: bk, Set: key.Hash, Chk: key.Check, ID: d.ID}}})
	}
	minhashNanos.Inc(ctx, int64(time.Since(signStart)))
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
		return cmp.Or(cmp.Compare(a.Hash, b.Hash), cmp.Compare(a.Check, b.Check), cmp.Compare(a.ID, b.ID))
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

// bucketFn emits star edges from each bucket's smallest id to every other member: k-1
// candidates for k members, never k². The hub must be the smallest id, not whichever
// member arrives first, or the candidate set (and so the clusters) would depend on the
// runner's ordering. Of several members with one shingle set only the smallest id takes
// part: collapse already joined the others to it. The id check is a side input it never
// reads (see checkUniqueIDs): no candidate exists before ids are known to be unique.
type bucketFn struct{ Partitions int }

func (f *bucketFn) ProcessElement(ctx context.Context, _ int, batch bandBatch, _ func(*int) bool, emit func(int, edgeBatch)) {
	start := time.Now()
	entries := batch.Items
	slices.SortFunc(entries, func(a, b BandEntry) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Set, b.Set), cmp.Compare(a.Chk, b.Chk), cmp.Compare(a.ID, b.ID))
	})
	byPart := map[int][]Edge{}
	var members []string
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].Key == entries[i].Key {
			j++
		}
		members = members[:0]
		hub := 0
		for k := i; k < j; k++ {
			if k > i && entries[k].Set == entries[k-1].Set && entries[k].Chk == entries[k-1].Chk {
				continue
			}
			if len(members) > 0 && entries[k].ID < members[hub] {
				hub = len(members)
			}
			members = append(members, entries[k].ID)
		}
		if len(members) > 1 {
			bucketsShared.Inc(ctx, 1)
			bucketEdgesTotal.Inc(ctx, int64(len(members)-1))
			p := partOfString(members[hub], f.Partitions)
			for k, id := range members {
				if k != hub {
					byPart[p] = append(byPart[p], Edge{U: members[hub], V: id})
				}
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
