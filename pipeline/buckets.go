package pipeline

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/candidates"
)

func init() {
	register.DoFn5x0[context.Context, int, bandBatch, func(*int) bool, func(int, edgeBatch)](&bucketFn{})
	register.Iter1[int]()
}

var (
	bucketsShared    = beam.NewCounter(metricsNS, "shared_buckets")
	bucketEdgesTotal = beam.NewCounter(metricsNS, "bucket_edges")
	lshNanos         = beam.NewCounter(metricsNS, "lsh_nanos")
)

// bucketFn turns each LSH bucket of a band partition into candidate edges
// (candidates.Star). Of several members with one shingle set only the smallest id takes
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
		for k := i; k < j; k++ {
			if k > i && entries[k].Set == entries[k-1].Set && entries[k].Chk == entries[k-1].Chk {
				continue
			}
			members = append(members, entries[k].ID)
		}
		if n := candidates.Star(members, func(u, v string) {
			p := partOfString(u, f.Partitions)
			byPart[p] = append(byPart[p], Edge{U: u, V: v})
		}); n > 0 {
			bucketsShared.Inc(ctx, 1)
			bucketEdgesTotal.Inc(ctx, int64(n))
		}
		i = j
	}
	for _, p := range sortedKeys(byPart) {
		emit(p, edgeBatch{byPart[p]})
	}
	lshNanos.Inc(ctx, int64(time.Since(start)))
	progress.stage.Store("lsh")
}
