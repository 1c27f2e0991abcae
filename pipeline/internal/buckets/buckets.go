// Package buckets turns LSH band entries into candidate pairs: the LSH bucketing stage
// of the dedup pipeline. It imports elem and the pure algorithms (minhash, lsh, candidates, ...), no
// other stage.
package buckets

import (
	"cmp"
	"context"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/candidates"
	"github.com/neardup/neardup/internal/memlimit"
	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// Options are the bucketing stage's settings.
type Options struct {
	Partitions int // partitions of every shuffle
	MaxAll     int // buckets of up to this many distinct sets give all their pairs (--bucket-all-pairs)
	// Containment, under --measure containment, is the size-class banding the band keys
	// were drawn from: a bucket is their lsh.Bucket, and only members that meet
	// (lsh.ContainmentScheme.Meets) are paired.
	Containment *lsh.ContainmentScheme
	// SpillDir, when set, is where the candidate edges go instead of through the runner
	// (elem.Spiller): each pair comes once per band it shares, and the runner would
	// hold them all in memory, several times over, until they are gathered.
	SpillDir string
}

func init() {
	register.DoFn6x1[context.Context, int, elem.BandBatch, func(int, elem.EdgeBatch), func(int, elem.HalfBatch), func(tally.Count), error](&bucketFn{})
}

var (
	lshNanos = beam.NewCounter(elem.MetricsNS, "lsh_nanos")
)

// Candidates turns the band entries, PCollection<KV<int, BandBatch>> gathered by band-key
// partition (one element per partition: elem.SplitFirst), into candidate edges,
// PCollection<KV<int, EdgeBatch>> by the first id's partition (all pairs of a bucket of
// up to cfg.BucketAllPairs distinct sets), and the members of the larger buckets as
// requests for their shingle sets, PCollection<KV<int, HalfBatch>> by id partition
// (BucketMember), which Verify resolves bucket by bucket (candidates.Resolve). Its
// counts come out as PCollection<tally.Count> (shared_buckets, bucket_edges,
// large_buckets). Nothing here waits for features.CheckUniqueIDs: bucketing cannot go
// wrong on a duplicate id, and every pair it makes is verified by joining the checked
// locations.
func Candidates(s beam.Scope, bands beam.PCollection, o Options) (edges, members, counts beam.PCollection) {
	s = s.Scope("buckets.Candidates")
	return beam.ParDo3(s, &bucketFn{Partitions: o.Partitions, MaxAll: o.MaxAll, Containment: o.Containment, SpillDir: o.SpillDir}, bands)
}

// bucketFn turns each LSH bucket of a band partition into candidate edges. Of several
// members with one shingle set only the smallest id takes part: collapse already joined
// the others to it.
//
// Prism runs a stage's partitions as one bundle, on one goroutine, so the partitions are
// bucketed on a pool of one goroutine per core and emitted in input order (as
// features.FeaturizeFn does).
type bucketFn struct {
	Partitions  int
	MaxAll      int
	Containment *lsh.ContainmentScheme
	SpillDir    string

	spill  elem.Spiller
	pool   *elem.PartitionPool[elem.BandBatch, bucketed]
	counts tally.Bundle
	// asked are the large-bucket member requests already sent in this bundle, up to
	// maxAsked: a family of near-copies fills one bucket per band with the same members
	// under the same smallest id, and Verify needs each member once. The rest of the
	// repeats are removed after the shuffle.
	asked    map[memberRequest]struct{}
	maxAsked int
}

// memberRequest is a large bucket's member request: the bucket's smallest id, the member.
type memberRequest struct{ pivot, node string }

// askedBytes is about what one entry of bucketFn.asked costs.
const askedBytes = 96

// bucketed is what one band partition yields: candidate edges and large-bucket members
// by destination partition, and the counter sums.
type bucketed struct {
	edges                map[int][]elem.Edge
	members              map[int][]elem.Half
	shared, pairs, large int64
	nanos                int64
	err                  error
}

func (f *bucketFn) Setup() {
	f.spill = elem.Spiller{Dir: f.SpillDir, Kind: "edges"}
	// The requests remembered take at most a 32nd of the process's memory limit.
	f.maxAsked = int(min(debug.SetMemoryLimit(-1)/32/askedBytes, 1<<24))
	f.pool = elem.NewPartitionPool(func(b elem.BandBatch) bucketed { return bucketPartition(b, f.MaxAll, f.Partitions, f.Containment) })
}

func (f *bucketFn) Teardown() { f.pool.Close() }

func (f *bucketFn) ProcessElement(ctx context.Context, _ int, batch elem.BandBatch,
	emit func(int, elem.EdgeBatch), emitMember func(int, elem.HalfBatch), _ func(tally.Count)) error {
	return f.pool.Add(batch, func(b bucketed) error { return f.deliver(ctx, b, emit, emitMember) })
}

func (f *bucketFn) FinishBundle(ctx context.Context, emit func(int, elem.EdgeBatch), emitMember func(int, elem.HalfBatch), emitCount func(tally.Count)) error {
	err := f.pool.Flush(func(b bucketed) error { return f.deliver(ctx, b, emit, emitMember) })
	err = cmp.Or(err, f.spill.Close(func(p int, ref string) { emit(p, elem.EdgeBatch{Spilled: []string{ref}}) }))
	f.counts.Emit(emitCount)
	f.asked = nil
	return err
}

// unasked removes from members (in place) the requests already sent in this bundle.
func (f *bucketFn) unasked(members []elem.Half) []elem.Half {
	if f.asked == nil {
		f.asked = map[memberRequest]struct{}{}
	}
	out := members[:0]
	for _, h := range members {
		k := memberRequest{h.V, h.Node}
		if _, ok := f.asked[k]; ok {
			continue
		}
		if len(f.asked) < f.maxAsked {
			f.asked[k] = struct{}{}
		}
		out = append(out, h)
	}
	return out
}

func (f *bucketFn) deliver(ctx context.Context, b bucketed, emit func(int, elem.EdgeBatch), emitMember func(int, elem.HalfBatch)) error {
	if b.err != nil {
		return b.err
	}
	for _, p := range elem.SortedKeys(b.edges) {
		if f.spill.Dir == "" {
			emit(p, elem.EdgeBatch{Items: b.edges[p]})
			continue
		}
		elem.SpillItems(&f.spill, elem.Edges, p, b.edges[p]...)
	}
	for _, p := range elem.SortedKeys(b.members) {
		if items := f.unasked(b.members[p]); len(items) > 0 {
			emitMember(p, elem.HalfBatch{Items: items})
		}
	}
	f.counts.Add("shared_buckets", b.shared)
	f.counts.Add("bucket_edges", b.pairs)
	f.counts.Add("large_buckets", b.large)
	lshNanos.Inc(ctx, b.nanos)
	elem.Progress.Stage.Store("lsh")
	return nil
}

// bucketPartition buckets one band partition's entries: all pairs of each bucket of up
// to maxAll distinct sets, by the first id's partition, and the members of larger
// buckets as requests for their sets (BucketMember), by the member's partition.
// Under containment (contain set) a bucket holds only the members that meet another.
func bucketPartition(batch elem.BandBatch, maxAll, partitions int, contain *lsh.ContainmentScheme) bucketed {
	start := time.Now()
	held := decodeGate.Acquire(decodedBytes(batch))
	defer decodeGate.Release(held)
	entries, err := bandEntries(batch)
	if err != nil {
		return bucketed{err: err}
	}
	elem.ReleaseSpilled(batch.Spilled) // the only reader of the band entries
	entries = elem.CompactBands(entries)
	r := bucketed{edges: map[int][]elem.Edge{}, members: map[int][]elem.Half{}}
	var members []string
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && (entries[j].Key == entries[i].Key ||
			contain != nil && lsh.Bucket(entries[j].Key) == lsh.Bucket(entries[i].Key)) {
			j++
		}
		bucket := entries[i:j]
		if contain != nil {
			bucket = meeting(contain, bucket)
		}
		if len(bucket) < 2 {
			i = j // a bucket of one set: no candidate
			continue
		}
		members = members[:0]
		for _, e := range bucket {
			// A copy: the decoded id shares its batch's memory (elem.Bands), which the
			// edges would otherwise keep alive downstream, batch and all.
			members = append(members, strings.Clone(e.ID))
		}
		r.shared++
		skipped := 0
		emit := func(u, v string) {
			if elem.BothIndexed(u, v) {
				skipped++
				return
			}
			p := elem.PartOfString(u, partitions)
			r.edges[p] = append(r.edges[p], elem.Edge{U: u, V: v})
		}
		var n int
		var all bool
		if contain != nil {
			n, all = containmentRoute(contain, bucket, members, maxAll, emit)
		} else {
			n, all = candidates.Pairs(members, maxAll, emit)
		}
		r.pairs += int64(n - skipped)
		if !all {
			r.large++
			for _, id := range members { // sorted: members[0] is the pivot
				p := elem.PartOfString(id, partitions)
				r.members[p] = append(r.members[p], elem.BucketMember(members[0], id))
			}
		}
		i = j
	}
	r.nanos = int64(time.Since(start))
	return r
}

// decodeGate bounds the band partitions decoded at once in the process to a quarter of
// the memory limit together: the runner may run this stage's bundles side by side, each
// with a pool of its own, and a partition's entries grow with the corpus.
var decodeGate = memlimit.NewGate(4)

// decodedBytes is about what bandEntries makes of batch: an entry and its id take about
// four times their encoded bytes once decoded, sorted and compacted.
func decodedBytes(batch elem.BandBatch) int64 {
	return 4*int64(elem.SpilledBytes(batch.Spilled)) + 64*int64(len(batch.Items))
}

// bandEntries returns a partition's band entries: those in the batch and those it has
// spilled, in no particular order. The spilled ones are decoded straight into one
// slice, sized once from their bytes (an encoded entry is 24 bytes, the id's length
// and the id: about 32 with a short id; a longer one only makes the estimate generous),
// and compacted as gathering compacts them (elem.CompactGathered), so copies of one page
// collapse while they are read.
func bandEntries(batch elem.BandBatch) ([]elem.BandEntry, error) {
	entries := slices.Grow(batch.Items, elem.SpilledBytes(batch.Spilled)/32)
	err := elem.EachSpilled(batch.Spilled, func(rec []byte) error {
		n := len(entries)
		var err error
		entries, err = elem.Bands.AppendRun(entries, rec)
		entries = elem.CompactGathered(entries, n)
		return err
	})
	return entries, err
}
