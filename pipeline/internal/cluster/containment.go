package cluster

import (
	"maps"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/containment"
	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

func init() {
	register.DoFn6x1[int, func(*elem.EdgeBatch) bool, func(*elem.EdgeBatch) bool, func(int, elem.FateBatch), func(elem.LineBatch), func(tally.Count), error](&containmentFn{})
	register.Iter1[elem.EdgeBatch]()
}

// Containment decides the documents of --measure containment from the exact-duplicate
// edges, PCollection<KV<int, elem.EdgeBatch>> (smaller id first), and the verified
// containment edges, PCollection<KV<int, elem.EdgeBatch>> (container first), both
// under key 0, by containment.Resolve's rule: a document is removed when it is
// contained in a kept document, into that document's cluster. It returns the fates,
// by id partition, the clusters.jsonl lines and the cluster counts, as Cluster
// does. The edges are decided on one worker, as Cluster's local mode does.
func Containment(s beam.Scope, duplicates, verified beam.PCollection, partitions int) (fates, lines, counts beam.PCollection) {
	s = s.Scope("cluster.Containment")
	fates, lines, counts = beam.ParDo3(s, &containmentFn{Partitions: partitions}, beam.CoGroupByKey(s, duplicates, verified))
	return fates, lines, counts
}

type containmentFn struct {
	Partitions int

	counts tally.Bundle
}

func (f *containmentFn) FinishBundle(_ func(int, elem.FateBatch), _ func(elem.LineBatch), emitCount func(tally.Count)) {
	f.counts.Emit(emitCount)
}

func (f *containmentFn) ProcessElement(_ int, dups, verified func(*elem.EdgeBatch) bool, emitFates func(int, elem.FateBatch), emitLines func(elem.LineBatch), _ func(tally.Count)) error {
	var dupPairs [][2]string
	var pairs []containment.Pair
	var b elem.EdgeBatch
	for dups(&b) {
		for _, e := range b.Items {
			dupPairs = append(dupPairs, [2]string{e.U, e.V})
		}
	}
	for verified(&b) {
		for _, e := range b.Items {
			pairs = append(pairs, containment.Pair{Member: e.V, Container: e.U, Sim: e.Sim})
		}
	}
	clusters := map[string][]elem.Member{}
	for _, ft := range containment.Resolve(pairs, dupPairs) {
		clusters[ft.Kept] = append(clusters[ft.Kept], elem.Member{ID: ft.ID, Sim: ft.Sim})
	}
	out := NewSettled(f.Partitions)
	for _, kept := range slices.Sorted(maps.Keys(clusters)) {
		members := clusters[kept] // sorted by id, as Resolve returns them
		fates, label, line, err := Settle(&f.counts, members, members[0].ID, kept)
		if err != nil {
			return err
		}
		out.Add(fates, label, line, emitLines)
	}
	out.Flush(emitFates, emitLines)
	return nil
}
