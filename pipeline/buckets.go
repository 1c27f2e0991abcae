package pipeline

import (
	"cmp"
	"context"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/transforms/candidates"
)

func init() {
	register.DoFn5x1[context.Context, int, bandBatch, func(int, edgeBatch), func(int, halfBatch), error](&bucketFn{})
}

var (
	bucketsShared    = beam.NewCounter(metricsNS, "shared_buckets")
	bucketEdgesTotal = beam.NewCounter(metricsNS, "bucket_edges")
	largeBuckets     = beam.NewCounter(metricsNS, "large_buckets")
	lshNanos         = beam.NewCounter(metricsNS, "lsh_nanos")
)

// LSHBuckets turns the band entries, PCollection<KV<int, bandBatch>> gathered by band-key
// partition, into candidate edges, PCollection<KV<int, edgeBatch>> by the first id's
// partition (all pairs of a bucket of up to cfg.BucketAllPairs distinct sets), and the
// members of the larger buckets as requests for their shingle sets,
// PCollection<KV<int, halfBatch>> by id partition (bucketMember), which Verify resolves
// bucket by bucket (candidates.Resolve). idCheck, an empty PCollection<KV<int, bandBatch>>
// (see checkUniqueIDs), is grouped with the bands only to be waited for: a side input
// would wait as well, but Prism's scheduler spins while a stage that reads one runs (see
// internal/once).
func LSHBuckets(s beam.Scope, bands, idCheck beam.PCollection, cfg *Config) (edges, members beam.PCollection) {
	s = s.Scope("LSHBuckets")
	return beam.ParDo2(s, &bucketFn{Partitions: cfg.Partitions, MaxAll: cfg.BucketAllPairs},
		gather(s, appendBandEntries, beam.Flatten(s, bands, idCheck)))
}

// bucketFn turns each LSH bucket of a band partition into candidate edges. Of several
// members with one shingle set only the smallest id takes part: collapse already joined
// the others to it.
//
// Prism runs a stage's partitions as one bundle, on one goroutine, so the partitions are
// bucketed on a pool of one goroutine per core and emitted in input order (as
// featurizeFn does).
type bucketFn struct {
	Partitions int
	MaxAll     int

	pool *partitionPool[bandBatch, bucketed]
}

// bucketed is what one band partition yields: candidate edges and large-bucket members
// by destination partition, and the counter sums.
type bucketed struct {
	edges                map[int][]Edge
	members              map[int][]Half
	shared, pairs, large int64
	nanos                int64
	err                  error
}

func (f *bucketFn) Setup() {
	f.pool = newPartitionPool(func(b bandBatch) bucketed { return bucketPartition(b, f.MaxAll, f.Partitions) })
}

func (f *bucketFn) Teardown() { f.pool.close() }

func (f *bucketFn) ProcessElement(ctx context.Context, _ int, batch bandBatch,
	emit func(int, edgeBatch), emitMember func(int, halfBatch)) error {
	return f.pool.add(batch, func(b bucketed) error { return f.deliver(ctx, b, emit, emitMember) })
}

func (f *bucketFn) FinishBundle(ctx context.Context, emit func(int, edgeBatch), emitMember func(int, halfBatch)) error {
	return f.pool.flush(func(b bucketed) error { return f.deliver(ctx, b, emit, emitMember) })
}

func (f *bucketFn) deliver(ctx context.Context, b bucketed, emit func(int, edgeBatch), emitMember func(int, halfBatch)) error {
	if b.err != nil {
		return b.err
	}
	for _, p := range sortedKeys(b.edges) {
		emit(p, edgeBatch{b.edges[p]})
	}
	for _, p := range sortedKeys(b.members) {
		emitMember(p, halfBatch{Items: b.members[p]})
	}
	bucketsShared.Inc(ctx, b.shared)
	bucketEdgesTotal.Inc(ctx, b.pairs)
	largeBuckets.Inc(ctx, b.large)
	lshNanos.Inc(ctx, b.nanos)
	progress.stage.Store("lsh")
	return nil
}

// bucketPartition buckets one band partition's entries: all pairs of each bucket of up
// to maxAll distinct sets, by the first id's partition, and the members of larger
// buckets as requests for their sets (bucketMember), by the member's partition.
func bucketPartition(batch bandBatch, maxAll, partitions int) bucketed {
	start := time.Now()
	entries, err := bandEntries(batch)
	if err != nil {
		return bucketed{err: err}
	}
	entries = compactBandEntries(entries)
	r := bucketed{edges: map[int][]Edge{}, members: map[int][]Half{}}
	var members []string
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].Key == entries[i].Key {
			j++
		}
		if j-i == 1 {
			i = j // a bucket of one set: no candidate
			continue
		}
		members = members[:0]
		for _, e := range entries[i:j] {
			// A copy: the decoded id shares its batch's memory (decodeBands), which the
			// edges would otherwise keep alive downstream, batch and all.
			members = append(members, strings.Clone(e.ID))
		}
		r.shared++
		n, all := candidates.Pairs(members, maxAll, func(u, v string) {
			p := partOfString(u, partitions)
			r.edges[p] = append(r.edges[p], Edge{U: u, V: v})
		})
		r.pairs += int64(n)
		if !all {
			r.large++
			for _, id := range members { // sorted: members[0] is the pivot
				p := partOfString(id, partitions)
				r.members[p] = append(r.members[p], bucketMember(members[0], id))
			}
		}
		i = j
	}
	r.nanos = int64(time.Since(start))
	return r
}

// bucketMember asks for member id's shingle set on behalf of the large buckets whose
// smallest id is pivot. It is a Half whose U is empty (no document id is: a missing one
// becomes FILE:LINE) and whose V is the pivot, so it travels the candidate pairs' path
// to the pivot's partition.
//
// The large buckets that share their smallest id are resolved as one, their union. A
// family of near-copies fills a bucket in every band, each with nearly the same members
// and the same smallest id: as one, each member's set is requested once (locateRequests
// merges the bands' requests) and compared about once, not once per band. Resolving a
// union decides every pair of each of its buckets, so the guarantee holds.
func bucketMember(pivot, id string) Half { return Half{V: pivot, Node: id} }

// isBucketMember tells a large bucket's member from one end of a candidate pair.
func (h Half) isBucketMember() bool { return h.U == "" }

// partition is where a set meets the others it is compared with: its pair's partition,
// or its large bucket's.
func (h Half) partition(n int) int {
	if h.isBucketMember() {
		return partOfString(h.V, n)
	}
	return partOfString(h.U+"\x00"+h.V, n)
}

// bandEntries returns a partition's band entries: those in the batch and those it has
// spilled, in no particular order. The spilled ones are decoded straight into one
// slice, sized once from their bytes (an encoded entry is 24 bytes, the id's length
// and the id: about 32 with a short id; a longer one only makes the estimate generous),
// and compacted as the combiner compacts (compactGathered), so copies of one page
// collapse while they are read.
func bandEntries(batch bandBatch) ([]BandEntry, error) {
	entries := slices.Grow(batch.Items, spilledBytes(batch.Spilled)/32)
	err := eachSpilled(batch.Spilled, func(rec []byte) error {
		n := len(entries)
		var err error
		entries, err = appendRun(entries, rec, getBand)
		entries = compactGathered(entries, n)
		return err
	})
	return entries, err
}

// compactBandEntries sorts band entries by (band key, set) and keeps one entry per
// (band key, set): the one with the smallest id. It is the same whatever order the
// entries arrived in.
func compactBandEntries(entries []BandEntry) []BandEntry {
	entries = sortBandEntries(entries)
	return slices.CompactFunc(entries, func(a, b BandEntry) bool { return a.Key == b.Key && a.Set == b.Set && a.Chk == b.Chk })
}

// compareBandEntries orders band entries by (band key, set, check, id). Not cmp.Or,
// which evaluates every comparison: band keys almost always differ, and the id
// comparison is a string comparison.
func compareBandEntries(a, b BandEntry) int {
	switch {
	case a.Key != b.Key:
		return cmp.Compare(a.Key, b.Key)
	case a.Set != b.Set:
		return cmp.Compare(a.Set, b.Set)
	case a.Chk != b.Chk:
		return cmp.Compare(a.Chk, b.Chk)
	}
	return cmp.Compare(a.ID, b.ID)
}

// sortBandEntries sorts by compareBandEntries. Band keys are hashes, spread evenly over
// their top bits whatever the partition (partOfHash uses bits 32 and up, modulo), so
// hashsort groups them by those bits and sorts only the small groups by comparison:
// about a third of a comparison sort's cost, which was most of bucketing a partition.
// Copies of one band key stay in one group, sorted like any other.
func sortBandEntries(entries []BandEntry) []BandEntry {
	hashsort.Func(entries, func(e BandEntry) uint64 { return e.Key }, compareBandEntries)
	return entries
}

// compactFrom is the gathered size from which the band combiner collapses identical
// sets: below it a partition's entries (about 70 MB at most) are kept as they come and
// sorted once, by bucketFn; above it, which only heavy skew or a huge partition reaches,
// each doubling is compacted once, so the sort costs about as much again as bucketFn's.
const compactFrom = 1 << 20

// appendBandEntries is the band shuffle's combiner. Copies of one page send identical
// entries to the same band partitions; keeping one entry per (band key, set) while
// gathering (the smallest id, as bucketFn would) means two million copies put one entry,
// not two million, in each of those partitions.
func appendBandEntries(a, b bandBatch) bandBatch {
	n := len(a.Items)
	return bandBatch{Items: compactGathered(append(a.Items, b.Items...), n), Spilled: append(a.Spilled, b.Spilled...)}
}

// compactGathered compacts entries, which held n before the latest were gathered, each
// time their count passes a power of two from compactFrom on.
func compactGathered(entries []BandEntry, n int) []BandEntry {
	if m := len(entries); m >= compactFrom && bits.Len(uint(n)) != bits.Len(uint(m)) {
		return compactBandEntries(entries)
	}
	return entries
}
