package segment

import (
	"cmp"
	"fmt"
	"io"
	"slices"
)

// Builder writes a segment from documents given in any order: it writes each record as
// it comes and holds the band entries (12 bytes per band and document) until Close
// sorts and writes them.
type Builder struct {
	w       *Writer
	entries [][]Entry
	set     []uint64
}

// NewBuilder starts a segment of documents with bands band keys and sets narrowed to
// width bits.
func NewBuilder(out io.Writer, width, bands int) (*Builder, error) {
	w, err := NewWriter(out, width, bands)
	if err != nil {
		return nil, err
	}
	return &Builder{w: w, entries: make([][]Entry, bands)}, nil
}

// Add adds a document: its id, its sorted distinct 64-bit shingle hashes (narrowed
// here, in a copy) and its band keys, one per band.
func (b *Builder) Add(id string, hashes []uint64, bandKeys []uint64) error {
	if len(bandKeys) != len(b.entries) {
		return fmt.Errorf("segment: document %q has %d band keys, the segment %d bands", id, len(bandKeys), len(b.entries))
	}
	b.set = Truncate(append(b.set[:0], hashes...), b.w.width)
	ord, err := b.w.Add(id, b.set)
	if err != nil {
		return err
	}
	for band, k := range bandKeys {
		b.entries[band] = append(b.entries[band], Entry{Key: k, Ord: ord})
	}
	return nil
}

// Close sorts and writes the band entries, the fences and the footer.
func (b *Builder) Close() error {
	for band, es := range b.entries {
		slices.SortFunc(es, func(x, y Entry) int { return cmp.Or(cmp.Compare(x.Key, y.Key), cmp.Compare(x.Ord, y.Ord)) })
		for _, e := range es {
			if err := b.w.AddEntry(band, e); err != nil {
				return err
			}
		}
		b.entries[band] = nil
	}
	return b.w.Close()
}

// Merge writes the documents of every segment of rs, in order (the documents of rs[0]
// first), as one segment to out, merging their sorted band entries as it goes: it holds
// one block per segment and the new record offsets, never a band. All of rs must have
// the same width and bands.
func Merge(out io.Writer, rs []*Reader) error {
	if len(rs) == 0 {
		return fmt.Errorf("segment: nothing to merge")
	}
	width, bands := rs[0].Width(), rs[0].Bands()
	for _, r := range rs[1:] {
		if r.Width() != width || r.Bands() != bands {
			return fmt.Errorf("segment: %s (width %d, %d bands) cannot merge with %s (width %d, %d bands)",
				r.Path(), r.Width(), r.Bands(), rs[0].Path(), width, bands)
		}
	}
	w, err := NewWriter(out, width, bands)
	if err != nil {
		return err
	}
	base := make([]uint32, len(rs))
	var buf []byte
	for i, r := range rs {
		base[i] = uint32(w.Docs())
		for ord := range uint32(r.Docs()) {
			rec, err := r.Record(ord, buf)
			if err != nil {
				return err
			}
			buf = rec
			if _, err := w.AddRecord(rec); err != nil {
				return err
			}
		}
	}
	for band := range bands {
		if err := mergeBand(w, band, rs, base); err != nil {
			return err
		}
	}
	return w.Close()
}

// Docs is the number of documents added.
func (b *Builder) Docs() int { return b.w.Docs() }
