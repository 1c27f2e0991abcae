package pipeline

import (
	"cmp"
	"context"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/candidates"
)

// StarMember is one member of a bucket too large for all pairs (see candidates.Pairs):
// the bucket's band key, the member's id, whether it is the star's hub, and, after
// AuditBuckets' join, its cluster label.
type StarMember struct {
	Key   uint64
	ID    string
	Hub   bool
	Label string
}

type starBatch struct{ Items []StarMember }

func init() {
	beam.RegisterType(reflect.TypeOf(StarMember{}))
	beam.RegisterCoder(reflect.TypeOf(starBatch{}), encodeStars, decodeStars)
	register.Function2x1(appendStars)
	register.DoFn4x0[int, func(*starBatch) bool, func(*fateBatch) bool, func(int, starBatch)](&labelStarsFn{})
	register.DoFn3x0[context.Context, int, starBatch](&countUnresolvedFn{})
	register.Emitter2[int, starBatch]()
	register.Iter1[starBatch]()
}

var unresolvedPairs = beam.NewCounter(metricsNS, "unresolved_bucket_pairs")

// AuditBuckets counts, for every star-edged bucket (PCollection<KV<int, starBatch>> by id
// partition), the pairs that shared the bucket but were neither compared nor put in one
// cluster: the only pairs LSH proposed that the run may have missed
// (candidates.Unresolved). fates is Cluster's PCollection<KV<int, fateBatch>> by id
// partition; a member without a fate is a cluster of its own. The result is the
// unresolved_bucket_pairs counter, which stats.json reports and warns about.
func AuditBuckets(s beam.Scope, stars, fates beam.PCollection, cfg *Config) {
	s = s.Scope("AuditBuckets")
	labelled := beam.ParDo(s, &labelStarsFn{Partitions: cfg.Partitions}, beam.CoGroupByKey(s, gather(s, appendStars, stars), fates))
	beam.ParDo0(s, &countUnresolvedFn{}, gather(s, appendStars, labelled))
}

func appendStars(a, b starBatch) starBatch { return starBatch{append(a.Items, b.Items...)} }

// labelStarsFn gives each star-bucket member of one id partition its cluster label and
// sends it to its bucket's partition.
type labelStarsFn struct{ Partitions int }

func (f *labelStarsFn) ProcessElement(_ int, starIter func(*starBatch) bool, fateIter func(*fateBatch) bool, emit func(int, starBatch)) {
	var members []StarMember
	var sb starBatch
	for starIter(&sb) {
		members = append(members, sb.Items...)
	}
	if len(members) == 0 {
		return
	}
	labels := map[string]string{}
	var fb fateBatch
	for fateIter(&fb) {
		for _, f := range fb.Items {
			labels[f.ID] = f.Cluster
		}
	}
	byPart := map[int][]StarMember{}
	for _, m := range members {
		m.Label = cmp.Or(labels[m.ID], m.ID)
		p := partOfHash(m.Key, f.Partitions)
		byPart[p] = append(byPart[p], m)
	}
	for _, p := range sortedKeys(byPart) {
		emit(p, starBatch{byPart[p]})
	}
}

// countUnresolvedFn counts each star bucket's unresolved pairs.
type countUnresolvedFn struct{}

func (countUnresolvedFn) ProcessElement(ctx context.Context, _ int, batch starBatch) {
	members := batch.Items
	slices.SortFunc(members, func(a, b StarMember) int { return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.ID, b.ID)) })
	var labels []string
	for i := 0; i < len(members); {
		j := i + 1
		for j < len(members) && members[j].Key == members[i].Key {
			j++
		}
		labels = labels[:0]
		hub := 0
		for k, m := range members[i:j] {
			labels = append(labels, m.Label)
			if m.Hub {
				hub = k
			}
		}
		if n := candidates.Unresolved(labels, hub); n > 0 {
			unresolvedPairs.Inc(ctx, n)
		}
		i = j
	}
}

func encodeStars(b starBatch) []byte {
	return encodeAll(b.Items, 40*len(b.Items), func(e *encoder, m StarMember) {
		e.u64(m.Key)
		e.str(m.ID)
		e.bool(m.Hub)
		e.str(m.Label)
	})
}

func decodeStars(b []byte) (starBatch, error) {
	items, err := decodeAll(b, func(d *decoder) StarMember {
		return StarMember{Key: d.u64(), ID: d.str(), Hub: d.bool(), Label: d.str()}
	})
	return starBatch{items}, err
}
