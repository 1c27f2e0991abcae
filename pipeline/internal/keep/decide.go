package keep

import (
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/record"
)

func init() {
	register.DoFn5x1[int, func(*elem.LocBatch) bool, func(*elem.FateBatch) bool, func(*string) bool, func(record.Decisions), error](&decideFn{})
	register.Emitter1[record.Decisions]()
	register.Iter1[string]()
	register.Iter1[elem.LocBatch]()
	register.Iter1[elem.FateBatch]()
}

// Decide gives every input document its Decision from the gathered locations,
// PCollection<KV<int, elem.LocBatch>>, the fates of the clustered ones,
// PCollection<KV<int, elem.FateBatch>>, and the ids report.html may show,
// PCollection<KV<int, string>>, all by id partition. It returns
// PCollection<record.Decisions>; the writers count them (sink.Write), so that the stage
// has one output: an engine writes a multi-output stage's whole output once per output.
// indexes names the --against indexes.
func Decide(s beam.Scope, locs, fates, shown beam.PCollection, indexes []string) (decisions beam.PCollection) {
	return beam.ParDo(s.Scope("keep.Decide"), &decideFn{Indexes: indexes}, beam.CoGroupByKey(s, locs, fates, shown))
}

// decideFn gives every input document of a partition its Decision, emitted in batches
// (record.Decisions) of at most BatchItems; documents in no cluster are kept. Indexed
// documents get none. Indexes names the --against indexes. A clustered document, and one
// of the ids shown lists (the pairs of SimilaritiesFile), is Shown: report.html may show
// its text.
type decideFn struct {
	Indexes []string
}

func (f *decideFn) ProcessElement(_ int, locIter func(*elem.LocBatch) bool, fateIter func(*elem.FateBatch) bool, shownIter func(*string) bool, emit func(record.Decisions)) error {
	fates := map[string]elem.Fate{}
	var part elem.FateBatch
	for fateIter(&part) {
		for _, ft := range part.Items {
			fates[ft.ID] = ft
		}
	}
	shown := map[string]bool{}
	var id string
	for shownIter(&id) {
		shown[id] = true
	}
	var locs elem.LocBatch
	var out []record.Decision
	var seen int64
	for locIter(&locs) {
		items, err := elem.LocItems(locs)
		if err != nil {
			return err
		}
		for _, l := range items {
			if elem.IDClass(l.ID) == elem.ClassIndexed {
				continue
			}
			ft, ok := fates[l.ID]
			if ok {
				seen++
			}
			d := decisionOf(l, ft, ok, f.Indexes)
			d.Shown = ok || shown[l.ID]
			if out = append(out, d); len(out) == elem.BatchItems {
				emit(record.Decisions{Items: out})
				out = nil
			}
		}
	}
	if len(out) > 0 {
		emit(record.Decisions{Items: out})
	}
	if seen != int64(len(fates)) {
		return fmt.Errorf("%d clustered documents have no input location (internal error)", int64(len(fates))-seen)
	}
	return nil
}

// decisionOf is the Decision of an input document from its fate; indexes names the
// --against indexes, so a removal by an indexed document names its index.
func decisionOf(l elem.IDLoc, ft elem.Fate, clustered bool, indexes []string) record.Decision {
	d := record.Decision{File: l.File, Line: l.Line, ID: elem.ExternalID(l.ID), Cluster: elem.ExternalID(l.ID), ClusterSize: 1}
	if !clustered {
		return d
	}
	d.Cluster, d.Removed, d.ClusterSize = elem.ExternalID(ft.Cluster), ft.Removed, ft.Size
	if ft.Removed {
		d.Similarity = ft.Sim
	}
	if ord := elem.IndexOf(ft.Cluster); ord >= 0 && ord < len(indexes) {
		d.Index = indexes[ord]
	}
	return d
}
