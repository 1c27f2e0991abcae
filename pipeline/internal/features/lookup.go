package features

import (
	"context"
	"fmt"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/record"
)

// Against an index of segments (format 2), a document's band keys are looked up in the
// index where the document is featurized, and each candidate's stored set is compared
// with the document's there: the indexed documents take part only as the far ends of
// verified edges. None is read whole, signed or banded, and no pair of two indexed
// documents is formed.

// LookupRef is one --against index of segments: its ordinal among --against (its
// documents' ids are elem.IndexedID(Ord, id)), directory, method parameters and the
// generation the driver checked.
type LookupRef struct {
	Ord        int
	Dir        string
	Params     index.Params
	Generation int
}

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

// lookup finds d's verified near-duplicates in every index: edges from the indexed
// document (whose id sorts first) to d.
func lookup(idx []*index.Segments, refs []LookupRef, sc *index.Scratch, d record.Doc, set, bandKeys []uint64, r *features) error {
	for i, s := range idx {
		err := s.Near(set, bandKeys, sc, func(m index.Match) {
			r.edges = append(r.edges, elem.Edge{U: elem.IndexedID(refs[i].Ord, m.ID), V: d.ID, Sim: m.Jaccard, VLen: r.set.Length})
		})
		if err != nil {
			return err
		}
	}
	return nil
}
