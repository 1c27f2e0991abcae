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
	register.DoFn2x0[elem.SetKey, func(int, elem.SetBatch)](&setByHashFn{})
	register.DoFn2x0[elem.BandEntry, func(int, elem.BandBatch)](&bandByKeyFn{})
	register.Function2x0(lineTexts)
	register.Function3x0(edgeTexts)
	register.DoFn3x1[int, elem.LocBatch, func(string), error](&locTextsFn{})
	register.DoFn3x1[int, elem.SetBatch, func(string), error](&setTextsFn{})
	register.DoFn3x1[int, elem.BandBatch, func(string), error](&bandTextsFn{})
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

// Sets returns keys as a PCollection<KV<int, SetBatch>>, each alone in a batch keyed
// by its hash's partition out of partitions, as features.Sign sends them.
func Sets(s beam.Scope, partitions int, keys []elem.SetKey) beam.PCollection {
	return beam.ParDo(s, &setByHashFn{Partitions: partitions}, beam.CreateList(s, keys))
}

type setByHashFn struct{ Partitions int }

func (f *setByHashFn) ProcessElement(k elem.SetKey, emit func(int, elem.SetBatch)) {
	emit(elem.PartOfHash(k.Hash, f.Partitions), elem.SetBatch{Items: []elem.SetKey{k}})
}

// Bands returns entries as a PCollection<KV<int, BandBatch>>, each alone in a batch
// keyed by its key's partition out of partitions, as features.Sign sends them.
func Bands(s beam.Scope, partitions int, entries []elem.BandEntry) beam.PCollection {
	return beam.ParDo(s, &bandByKeyFn{Partitions: partitions}, beam.CreateList(s, entries))
}

type bandByKeyFn struct{ Partitions int }

func (f *bandByKeyFn) ProcessElement(e elem.BandEntry, emit func(int, elem.BandBatch)) {
	emit(elem.PartOfHash(e.Key, f.Partitions), elem.BandBatch{Items: []elem.BandEntry{e}})
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

// LocTexts takes a PCollection<KV<int, LocBatch>> and returns a PCollection<string> of
// its locations, each as "id file:line", marked when it is not keyed by its id's
// partition out of partitions, where the stages after look for it.
func LocTexts(s beam.Scope, partitions int, batches beam.PCollection) beam.PCollection {
	return beam.ParDo(s, &locTextsFn{Partitions: partitions}, batches)
}

type locTextsFn struct{ Partitions int }

func (f *locTextsFn) ProcessElement(p int, b elem.LocBatch, emit func(string)) error {
	items, err := elem.LocItems(b)
	if err != nil {
		return err
	}
	for _, l := range items {
		emit(fmt.Sprintf("%s %s:%d", l.ID, l.File, l.Line) + misplaced(p, elem.PartOfString(l.ID, f.Partitions)))
	}
	return nil
}

// SetTexts takes a PCollection<KV<int, SetBatch>>, spilled or not, and returns a PCollection<string> of
// its set fingerprints, each as "id hash check length" (hex hashes), marked when it is
// not keyed by its hash's partition out of partitions, where exact duplicates meet.
func SetTexts(s beam.Scope, partitions int, batches beam.PCollection) beam.PCollection {
	return beam.ParDo(s, &setTextsFn{Partitions: partitions}, batches)
}

type setTextsFn struct{ Partitions int }

func (f *setTextsFn) ProcessElement(p int, b elem.SetBatch, emit func(string)) error {
	items, err := elem.Sets.Items(b)
	for _, k := range items {
		emit(SetText(k) + misplaced(p, elem.PartOfHash(k.Hash, f.Partitions)))
	}
	return err
}

// SetText is how SetTexts writes one set fingerprint.
func SetText(k elem.SetKey) string {
	return fmt.Sprintf("%s %x %x %d", k.ID, k.Hash, k.Check, k.Length)
}

// BandTexts takes a PCollection<KV<int, BandBatch>>, spilled or not, and returns a
// PCollection<string> of its band entries, each as "id key hash check" (hex), marked
// when it is not keyed by its key's partition out of partitions, where buckets meet.
func BandTexts(s beam.Scope, partitions int, batches beam.PCollection) beam.PCollection {
	return beam.ParDo(s, &bandTextsFn{Partitions: partitions}, batches)
}

type bandTextsFn struct{ Partitions int }

func (f *bandTextsFn) ProcessElement(p int, b elem.BandBatch, emit func(string)) error {
	items, err := elem.Bands.Items(b)
	for _, e := range items {
		emit(BandText(e) + misplaced(p, elem.PartOfHash(e.Key, f.Partitions)))
	}
	return err
}

// BandText is how BandTexts writes one band entry.
func BandText(e elem.BandEntry) string {
	return fmt.Sprintf("%s %x %x", e.ID, e.Key, e.Hash)
}

// misplaced marks an item keyed by partition p where want is expected.
func misplaced(p, want int) string {
	if p == want {
		return ""
	}
	return fmt.Sprintf(" in partition %d", p)
}
