package pipeline

import (
	"cmp"
	"context"
	"math/bits"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/candidates"
)

func init() {
	register.DoFn6x1[context.Context, int, bandBatch, func(*int) bool, func(int, edgeBatch), func(int, starBatch), error](&bucketFn{})
	register.Iter1[int]()
}

var (
	bucketsShared    = beam.NewCounter(metricsNS, "shared_buckets")
	bucketEdgesTotal = beam.NewCounter(metricsNS, "bucket_edges")
	starBuckets      = beam.NewCounter(metricsNS, "star_buckets")
	lshNanos         = beam.NewCounter(metricsNS, "lsh_nanos")
)

// LSHBuckets turns the band entries, PCollection<KV<int, bandBatch>> gathered by band-key
// partition, into candidate edges, PCollection<KV<int, edgeBatch>> by the first id's
// partition (candidates.Pairs: all pairs of a bucket of up to cfg.BucketAllPairs
// distinct sets, star edges from the smallest id beyond), and the members of the
// star-edged buckets, PCollection<KV<int, starBatch>> by id partition, for AuditBuckets.
// idCheck is only waited for (see checkUniqueIDs).
func LSHBuckets(s beam.Scope, bands, idCheck beam.PCollection, cfg *Config) (edges, stars beam.PCollection) {
	s = s.Scope("LSHBuckets")
	return beam.ParDo2(s, &bucketFn{Partitions: cfg.Partitions, MaxAll: cfg.BucketAllPairs},
		gather(s, appendBandEntries, bands), beam.SideInput{Input: idCheck})
}

// bucketFn turns each LSH bucket of a band partition into candidate edges. Of several
// members with one shingle set only the smallest id takes part: collapse already joined
// the others to it. The id check is a side input it never reads (see checkUniqueIDs):
// no candidate exists before ids are known to be unique.
type bucketFn struct {
	Partitions int
	MaxAll     int
}

func (f *bucketFn) ProcessElement(ctx context.Context, _ int, batch bandBatch, _ func(*int) bool,
	emit func(int, edgeBatch), emitStar func(int, starBatch)) error {
	start := time.Now()
	entries, err := bandEntries(batch)
	if err != nil {
		return err
	}
	entries = compactBandEntries(entries)
	byPart := map[int][]Edge{}
	starPart := map[int][]StarMember{}
	var members []string
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].Key == entries[i].Key {
			j++
		}
		members = members[:0]
		for _, e := range entries[i:j] {
			members = append(members, e.ID)
		}
		n, star := candidates.Pairs(members, f.MaxAll, func(u, v string) {
			p := partOfString(u, f.Partitions)
			byPart[p] = append(byPart[p], Edge{U: u, V: v})
		})
		if n > 0 {
			bucketsShared.Inc(ctx, 1)
			bucketEdgesTotal.Inc(ctx, int64(n))
		}
		if star {
			starBuckets.Inc(ctx, 1)
			for k, id := range members { // sorted: members[0] is the hub
				p := partOfString(id, f.Partitions)
				starPart[p] = append(starPart[p], StarMember{Key: entries[i].Key, ID: id, Hub: k == 0})
			}
		}
		i = j
	}
	for _, p := range sortedKeys(byPart) {
		emit(p, edgeBatch{byPart[p]})
	}
	for _, p := range sortedKeys(starPart) {
		emitStar(p, starBatch{starPart[p]})
	}
	lshNanos.Inc(ctx, int64(time.Since(start)))
	progress.stage.Store("lsh")
	return nil
}

// bandEntries returns a partition's band entries: those in the batch and those in its
// spill files, in no particular order. They are gathered by the combiner's own function,
// so copies of one page collapse while they are read.
func bandEntries(batch bandBatch) ([]BandEntry, error) {
	acc := bandBatch{Items: batch.Items}
	err := unspill(batch.Spilled, decodeBands, func(b bandBatch) { acc = appendBandEntries(acc, b) })
	return acc.Items, err
}

// compactBandEntries sorts band entries by (band key, set) and keeps one entry per
// (band key, set): the one with the smallest id. It is the same whatever order the
// entries arrived in.
func compactBandEntries(entries []BandEntry) []BandEntry {
	slices.SortFunc(entries, func(a, b BandEntry) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Set, b.Set), cmp.Compare(a.Chk, b.Chk), cmp.Compare(a.ID, b.ID))
	})
	return slices.CompactFunc(entries, func(a, b BandEntry) bool { return a.Key == b.Key && a.Set == b.Set && a.Chk == b.Chk })
}

// compactFrom is the gathered size from which the band combiner collapses identical
// sets: below it a partition's entries are few enough to keep, above it each doubling
// is compacted once, so the sort costs about as much again as bucketFn's own.
const compactFrom = 1 << 12

// appendBandEntries is the band shuffle's combiner. Copies of one page send identical
// entries to the same band partitions; keeping one entry per (band key, set) while
// gathering (the smallest id, as bucketFn would) means two million copies put one entry,
// not two million, in each of those partitions.
func appendBandEntries(a, b bandBatch) bandBatch {
	n, m := len(a.Items), len(a.Items)+len(b.Items)
	out := append(a.Items, b.Items...)
	if m >= compactFrom && bits.Len(uint(n)) != bits.Len(uint(m)) {
		out = compactBandEntries(out)
	}
	return bandBatch{Items: out, Spilled: append(a.Spilled, b.Spilled...)}
}
