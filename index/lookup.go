package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/neardup/neardup/index/segment"
	"github.com/neardup/neardup/jaccard"
)

// Segments is an open index of segments, for lookups. It is safe for concurrent use.
type Segments struct {
	Dir      string
	Manifest *Manifest
	segs     []*segment.Reader
}

// Match is an indexed document whose similarity to a looked-up document reaches the
// index's threshold.
type Match struct {
	ID      string
	Jaccard float64 // exact Jaccard of the two sets of stored-width hashes
}

// OpenSegments reads dir's manifest, checks it against the run's parameters (a
// *MismatchError) and opens every segment, checking each one's size, footer and fences;
// the SHA-256 of whole files is checked by Verify (`neardup index --info`), not here,
// since that would read the whole index. Every block and record read later is checked.
func OpenSegments(ctx context.Context, dir string, run Params) (*Segments, error) {
	m, err := ReadManifest(ctx, dir)
	if err != nil {
		return nil, err
	}
	if !m.Segmented() {
		return nil, fmt.Errorf("index %s: format version %d (Parquet shards) cannot be looked up; convert it with neardup index --compact %s", dir, m.FormatVersion, dir)
	}
	if err := m.CheckParams(dir, run); err != nil {
		return nil, err
	}
	s := &Segments{Dir: dir, Manifest: m}
	for _, e := range m.Segments {
		r, err := openSegment(ctx, dir, e)
		if err == nil && (r.Width() != m.ShingleBits || r.Bands() != m.Params.Bands) {
			err = fmt.Errorf("index %s: segment file %s has width %d and %d bands, the manifest says %d and %d", dir, e.Path, r.Width(), r.Bands(), m.ShingleBits, m.Params.Bands)
			r.Close()
		}
		if err != nil {
			s.Close()
			return nil, err
		}
		s.segs = append(s.segs, r)
	}
	return s, nil
}

// Close closes the segment files.
func (s *Segments) Close() error {
	var errs []error
	for _, r := range s.segs {
		errs = append(errs, r.Close())
	}
	return errors.Join(errs...)
}

// Scratch is the reusable memory of one goroutine's lookups.
type Scratch struct {
	query, set []uint64
	cands      [][]uint32 // per segment
}

// Near finds the indexed documents whose exact Jaccard with a document reaches the
// index's threshold, among those sharing at least one band key with it. hashes are the
// document's distinct 64-bit shingle hashes, in any order (only a document with
// candidates has them copied and sorted), and bandKeys its band keys in band order, as
// the pipeline computes them. fn receives the matches segment by segment, each
// segment's in ordinal order.
func (s *Segments) Near(hashes, bandKeys []uint64, sc *Scratch, fn func(Match)) error {
	if len(bandKeys) != s.Manifest.Params.Bands {
		return fmt.Errorf("index %s: %d band keys, the index has %d bands", s.Dir, len(bandKeys), s.Manifest.Params.Bands)
	}
	if len(sc.cands) < len(s.segs) {
		sc.cands = make([][]uint32, len(s.segs))
	}
	any := false
	for i, r := range s.segs {
		c := sc.cands[i][:0]
		for band, key := range bandKeys {
			if err := r.Lookup(band, key, func(ord uint32) { c = append(c, ord) }); err != nil {
				return fmt.Errorf("index %s: %w", s.Dir, err)
			}
		}
		slices.Sort(c)
		sc.cands[i] = slices.Compact(c)
		any = any || len(c) > 0
	}
	if !any {
		return nil
	}
	sc.query = append(sc.query[:0], hashes...)
	slices.Sort(sc.query)
	sc.query = segment.Truncate(sc.query, s.Manifest.ShingleBits)
	for i, r := range s.segs {
		for _, ord := range sc.cands[i] {
			id, set, err := r.Doc(ord, sc.set)
			if err != nil {
				return fmt.Errorf("index %s: %w", s.Dir, err)
			}
			sc.set = set
			if j := jaccard.Similarity(sc.query, set); j >= s.Manifest.Params.Threshold {
				fn(Match{ID: id, Jaccard: j})
			}
		}
	}
	return nil
}

// SortMatches orders matches by descending Jaccard, then ascending id.
func SortMatches(ms []Match) {
	slices.SortFunc(ms, func(a, b Match) int { return cmp.Or(cmp.Compare(b.Jaccard, a.Jaccard), cmp.Compare(a.ID, b.ID)) })
}

// EachDoc calls fn with every indexed document (id and stored set), segment by
// segment in ordinal order: for tests and conversions.
func (s *Segments) EachDoc(fn func(id string, set []uint64) error) error {
	var set []uint64
	for _, r := range s.segs {
		for ord := range uint32(r.Docs()) {
			id, st, err := r.Doc(ord, set)
			if err != nil {
				return fmt.Errorf("index %s: %w", s.Dir, err)
			}
			set = st
			if err := fn(id, set); err != nil {
				return err
			}
		}
	}
	return nil
}
