// Package stagetest holds what the stage tests under pipeline/internal share: hand-built
// input collections keyed as the stages before them key theirs, and outputs written as
// strings for passert. Only tests import it.
package stagetest

import (
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/pipeline/internal/elem"
)

func init() {
	register.DoFn2x0[elem.IDLoc, func(int, elem.LocBatch)](&locByIDFn{})
	register.Function2x0(lineTexts)
	register.Function3x0(edgeTexts)
}

// Any returns ss as the arguments passert.Equals takes.
func Any(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Locs returns locs as a PCollection<KV<int, LocBatch>>, each location alone in a batch
// keyed by its id's partition out of partitions, as features.CheckUniqueIDs sends them.
func Locs(s beam.Scope, partitions int, locs []elem.IDLoc) beam.PCollection {
	return beam.ParDo(s, &locByIDFn{Partitions: partitions}, beam.CreateList(s, locs))
}

// locByIDFn keys one location by its id's partition.
type locByIDFn struct{ Partitions int }

func (f *locByIDFn) ProcessElement(l elem.IDLoc, emit func(int, elem.LocBatch)) {
	emit(elem.PartOfString(l.ID, f.Partitions), elem.LocBatch{Items: []elem.IDLoc{l}})
}

// Lines takes a PCollection<LineBatch> and returns a PCollection<string> of its
// clusters.jsonl lines.
func Lines(s beam.Scope, batches beam.PCollection) beam.PCollection {
	return beam.ParDo(s, lineTexts, batches)
}

func lineTexts(b elem.LineBatch, emit func(string)) {
	for _, l := range b.Items {
		emit(l.Line)
	}
}

// Edges takes a PCollection<KV<int, EdgeBatch>> and returns a PCollection<string> of its
// edges, each as "U V sim ULen VLen".
func Edges(s beam.Scope, batches beam.PCollection) beam.PCollection {
	return beam.ParDo(s, edgeTexts, batches)
}

func edgeTexts(_ int, b elem.EdgeBatch, emit func(string)) {
	for _, e := range b.Items {
		emit(fmt.Sprintf("%s %s %.2f %d %d", e.U, e.V, e.Sim, e.ULen, e.VLen))
	}
}
