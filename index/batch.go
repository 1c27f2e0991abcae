package index

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/neardup/neardup/index/segment"
	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/jaccard"
)

// QuerySet is a document's set of shingle hashes narrowed to an index's stored width,
// for a Batch; Segments.Prepare makes it.
type QuerySet struct {
	v32    []uint32 // widths up to 32
	v64    []uint64
	sorted bool
}

// Prepare copies a document's distinct 64-bit shingle hashes, in any order, narrowed to
// the index's stored width, for Batch.Add. It is safe for concurrent use.
func (s *Segments) Prepare(hashes []uint64) QuerySet {
	shift := 64 - s.Manifest.ShingleBits
	if s.Manifest.ShingleBits > 32 {
		v := make([]uint64, len(hashes))
		for i, h := range hashes {
			v[i] = h >> shift
		}
		return QuerySet{v64: v}
	}
	v := make([]uint32, len(hashes))
	for i, h := range hashes {
		v[i] = uint32(h >> shift)
	}
	return QuerySet{v32: v}
}

// Batch looks up many documents at once. Add collects each one's set and band keys; Run
// sorts the band keys of all, joins them against every segment's band blocks in file
// order (segment.Reader.Join) and reads the candidates' stored sets in ordinal order
// (segment.Reader.ReadDocs). It finds for each document what Near finds, in the same
// order, and reads each block and record it needs once, in order, where Near reads one
// per lookup: far less work for a batch whose lookups touch a good share of an index
// that is not resident. A Batch is not safe for concurrent use.
type Batch struct {
	s     *Segments
	sets  []QuerySet
	keys  [][]bandLookup // per band
	bytes int
	sc    segment.BatchScratch
	cands []uint64 // ordinal<<32 | query
	ords  []uint32
	query []uint64
	found []found
}

type bandLookup struct {
	key uint64
	q   uint32
}

type found struct {
	q, seg, ord uint32
	m           Match
}

// NewBatch returns an empty batch of lookups in s.
func (s *Segments) NewBatch() *Batch {
	return &Batch{s: s, keys: make([][]bandLookup, s.Manifest.Params.Bands)}
}

// Len is the number of documents added since the last Run.
func (b *Batch) Len() int { return len(b.sets) }

// Bytes is about the memory the added documents hold.
func (b *Batch) Bytes() int { return b.bytes }

// Add adds a document, its set (from Prepare, which b keeps) and its band keys in band
// order, as the pipeline computes them; it is the Len()-th of the batch, from 0.
func (b *Batch) Add(set QuerySet, bandKeys []uint64) error {
	if len(bandKeys) != len(b.keys) {
		return fmt.Errorf("index %s: %d band keys, the index has %d bands", b.s.Dir, len(bandKeys), len(b.keys))
	}
	q := uint32(len(b.sets))
	b.sets = append(b.sets, set)
	for band, k := range bandKeys {
		b.keys[band] = append(b.keys[band], bandLookup{key: k, q: q})
	}
	b.bytes += 48 + 4*len(set.v32) + 8*len(set.v64) + 16*len(bandKeys)
	return nil
}

// Run finds the added documents' matches and empties the batch. fn receives them by
// document, in the order they were added, each document's segment by segment and each
// segment's in ordinal order, as Near gives them.
func (b *Batch) Run(fn func(q int, m Match)) error {
	defer b.Reset()
	if len(b.sets) == 0 {
		return nil
	}
	for _, ks := range b.keys {
		hashsort.Func(ks, func(l bandLookup) uint64 { return l.key }, func(x, y bandLookup) int {
			return cmp.Or(cmp.Compare(x.key, y.key), cmp.Compare(x.q, y.q))
		})
	}
	b.found = b.found[:0]
	for seg, r := range b.s.segs {
		if err := b.runSegment(uint32(seg), r); err != nil {
			return fmt.Errorf("index %s: %w", b.s.Dir, err)
		}
	}
	slices.SortFunc(b.found, func(x, y found) int {
		return cmp.Or(cmp.Compare(x.q, y.q), cmp.Compare(x.seg, y.seg), cmp.Compare(x.ord, y.ord))
	})
	for _, f := range b.found {
		fn(int(f.q), f.m)
	}
	return nil
}

// runSegment adds the matches in segment seg to b.found.
func (b *Batch) runSegment(seg uint32, r *segment.Reader) error {
	b.cands = b.cands[:0]
	for band, ks := range b.keys {
		err := r.Join(band, len(ks), func(i int) uint64 { return ks[i].key }, &b.sc, func(i int, ord uint32) {
			b.cands = append(b.cands, uint64(ord)<<32|uint64(ks[i].q))
		})
		if err != nil {
			return err
		}
	}
	slices.Sort(b.cands)
	b.cands = slices.Compact(b.cands)
	b.ords = b.ords[:0]
	for _, c := range b.cands {
		if ord := uint32(c >> 32); len(b.ords) == 0 || b.ords[len(b.ords)-1] != ord {
			b.ords = append(b.ords, ord)
		}
	}
	next := 0 // the first candidate of the document being read
	threshold := b.s.Manifest.Params.Threshold
	return r.ReadDocs(b.ords, &b.sc, func(i int, id string, set []uint64) error {
		ord := b.ords[i]
		for ; next < len(b.cands) && uint32(b.cands[next]>>32) == ord; next++ {
			q := uint32(b.cands[next])
			if j := jaccard.Similarity(b.querySet(q), set); j >= threshold {
				b.found = append(b.found, found{q: q, seg: seg, ord: ord, m: Match{ID: id, Jaccard: j}})
			}
		}
		return nil
	})
}

// querySet is document q's set, ascending and distinct, in b.query.
func (b *Batch) querySet(q uint32) []uint64 {
	s := &b.sets[q]
	if !s.sorted {
		if s.v64 != nil {
			slices.Sort(s.v64)
			s.v64 = slices.Compact(s.v64)
		} else {
			slices.Sort(s.v32)
			s.v32 = slices.Compact(s.v32)
		}
		s.sorted = true
	}
	if s.v64 != nil {
		return s.v64
	}
	b.query = b.query[:0]
	for _, v := range s.v32 {
		b.query = append(b.query, uint64(v))
	}
	return b.query
}

// Reset empties the batch.
func (b *Batch) Reset() {
	clear(b.sets)
	b.sets = b.sets[:0]
	for band := range b.keys {
		b.keys[band] = b.keys[band][:0]
	}
	b.bytes = 0
}
