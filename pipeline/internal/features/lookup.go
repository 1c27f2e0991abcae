package features

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// Against an index of segments (format 2), documents are looked up where they are
// featurized, a batch at a time: their band keys are joined against each index's band
// blocks and each candidate's stored set is compared with the document's there
// (index.Batch). The indexed documents take part only as the far ends of verified edges.
// None is read whole, signed or banded, and no pair of two indexed documents is formed.

// LookupRef is one --against index of segments: its ordinal among --against (its
// documents' ids are elem.IndexedID(Ord, id)), directory, method parameters and the
// generation the driver checked.
type LookupRef struct {
	Ord        int
	Dir        string
	Params     index.Params
	Generation int
}

// lookupBatchBytes bounds the memory of a bundle's pending lookups: the sets and band
// keys of the documents waiting for the next join. A join reads the blocks its keys
// need, so fewer, larger batches read an index's band section fewer times.
const lookupBatchBytes = 128 << 20

// openLookups opens the indexes of refs at the generations the driver checked.
func openLookups(ctx context.Context, refs []LookupRef) ([]*index.Segments, error) {
	var out []*index.Segments
	for _, r := range refs {
		s, err := index.OpenSegments(ctx, r.Dir, r.Params)
		if err == nil && s.Manifest.Generation != r.Generation {
			s.Close()
			err = fmt.Errorf("index %s: changed during the run (generation %d, this run started from %d); rerun", r.Dir, s.Manifest.Generation, r.Generation)
		}
		if err != nil {
			for _, o := range out {
				o.Close()
			}
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// lookups are a bundle's documents waiting to be looked up in the --against indexes.
type lookups struct {
	refs    []LookupRef
	indexes []*index.Segments
	batches []*index.Batch // one per index, each holding the documents of docs
	docs    []elem.SetKey  // the pending documents, in the order they came
	found   []lookupMatch
}

type lookupMatch struct {
	q, index int
	m        index.Match
}

func newLookups(refs []LookupRef, indexes []*index.Segments) *lookups {
	l := &lookups{refs: refs, indexes: indexes}
	for _, s := range indexes {
		l.batches = append(l.batches, s.NewBatch())
	}
	return l
}

// prepare copies a document's set for each index: safe for concurrent use.
func (l *lookups) prepare(hashes []uint64) []index.QuerySet {
	sets := make([]index.QuerySet, len(l.indexes))
	for i, s := range l.indexes {
		sets[i] = s.Prepare(hashes)
	}
	return sets
}

// add adds a document, its sets (from prepare) and band keys; full reports that the
// pending lookups should run.
func (l *lookups) add(d elem.SetKey, sets []index.QuerySet, bandKeys []uint64) (full bool, err error) {
	l.docs = append(l.docs, d)
	size := 0
	for i, b := range l.batches {
		if err := b.Add(sets[i], bandKeys); err != nil {
			return false, err
		}
		size += b.Bytes()
	}
	return size >= lookupBatchBytes, nil
}

// run looks up the pending documents and calls fn with their verified near-duplicates
// in every index, edges from the indexed document (whose id sorts first): by document
// in the order they came, then by index, each index's in the order Near gives them.
func (l *lookups) run(fn func(elem.Edge)) error {
	l.found = l.found[:0]
	for i, b := range l.batches {
		err := b.Run(func(q int, m index.Match) { l.found = append(l.found, lookupMatch{q: q, index: i, m: m}) })
		if err != nil {
			l.reset()
			return err
		}
	}
	// Each index's matches come by document: a stable sort by document keeps the rest.
	slices.SortStableFunc(l.found, func(a, b lookupMatch) int { return cmp.Compare(a.q, b.q) })
	for _, f := range l.found {
		d := l.docs[f.q]
		fn(elem.Edge{U: elem.IndexedID(l.refs[f.index].Ord, f.m.ID), V: d.ID, Sim: f.m.Jaccard, VLen: d.Length})
	}
	l.reset()
	return nil
}

// reset drops the pending documents.
func (l *lookups) reset() {
	for _, b := range l.batches {
		b.Reset()
	}
	clear(l.docs)
	l.docs = l.docs[:0]
}
