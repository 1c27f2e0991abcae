package segment

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Entry is one band entry: a document's band key and its ordinal in the segment.
type Entry struct {
	Key uint64
	Ord uint32
}

func compareEntries(a, b Entry) int {
	switch {
	case a.Key < b.Key:
		return -1
	case a.Key > b.Key:
		return 1
	case a.Ord < b.Ord:
		return -1
	case a.Ord > b.Ord:
		return 1
	}
	return 0
}

// Writer writes a segment in two passes over its parts, in file order: the documents
// (Add), then every band's entries in ascending order (AddEntry), then Close. It holds
// the record offsets (8 bytes a document) and the fences, nothing else.
type Writer struct {
	out     *bufio.Writer
	pos     uint64
	width   int
	bands   int
	offsets []uint64
	buf     []byte

	// band section state
	inBands  bool
	band     int
	inBand   uint64
	last     Entry
	pending  []Entry // the block being filled
	block    []byte
	fences   [][]uint64
	blockPos []uint64
	bandsPos uint64
	err      error
}

// NewWriter starts a segment of documents with sets of width-bit values (1..64) and
// bands band keys each.
func NewWriter(w io.Writer, width, bands int) (*Writer, error) {
	if width < 1 || width > 64 {
		return nil, fmt.Errorf("segment: width %d bits, want 1 to 64", width)
	}
	if bands < 1 {
		return nil, fmt.Errorf("segment: %d bands, want at least 1", bands)
	}
	sw := &Writer{out: bufio.NewWriterSize(w, 1<<20), width: width, bands: bands, fences: make([][]uint64, bands)}
	sw.write([]byte(headerMagic))
	return sw, nil
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	_, w.err = w.out.Write(b)
	w.pos += uint64(len(b))
}

// Add writes a document and returns its ordinal. set holds its shingle hashes already
// narrowed to the segment's width (Truncate), ascending and distinct.
func (w *Writer) Add(id string, set []uint64) (uint32, error) {
	if w.inBands {
		return 0, fmt.Errorf("segment: document added after the band entries")
	}
	if len(w.offsets) >= math.MaxUint32 {
		return 0, fmt.Errorf("segment: more than %d documents", math.MaxUint32-1)
	}
	for i, v := range set {
		if (w.width < 64 && v>>w.width != 0) || (i > 0 && v <= set[i-1]) {
			return 0, fmt.Errorf("segment: document %q: set not ascending, distinct %d-bit values", id, w.width)
		}
	}
	ord := uint64(len(w.offsets))
	b := w.buf[:0]
	b = binary.AppendUvarint(b, uint64(len(id)))
	b = append(b, id...)
	b = binary.AppendUvarint(b, uint64(len(set)))
	b = appendEF(b, set, w.width)
	b = binary.LittleEndian.AppendUint32(b, recordCRC(ord, b))
	w.buf = b
	w.offsets = append(w.offsets, w.pos)
	w.write(b)
	return uint32(ord), w.err
}

// AddRecord copies a record read by Reader.Record, checked there, under a new ordinal.
func (w *Writer) AddRecord(rec []byte) (uint32, error) {
	if w.inBands {
		return 0, fmt.Errorf("segment: document added after the band entries")
	}
	ord := uint64(len(w.offsets))
	body := rec[:len(rec)-4]
	b := append(w.buf[:0], body...)
	b = binary.LittleEndian.AppendUint32(b, recordCRC(ord, body))
	w.buf = b
	w.offsets = append(w.offsets, w.pos)
	w.write(b)
	return uint32(ord), w.err
}

// Docs is the number of documents added.
func (w *Writer) Docs() int { return len(w.offsets) }

func (w *Writer) startBands() {
	w.inBands = true
	w.offsets = append(w.offsets, w.pos)
	b := make([]byte, 0, 8*len(w.offsets))
	for _, o := range w.offsets {
		b = binary.LittleEndian.AppendUint64(b, o)
	}
	w.offsets = w.offsets[:len(w.offsets)-1]
	w.write(b)
	w.bandsPos = w.pos
}

// AddEntry adds the next entry of band band: bands in order, each band's entries
// ascending by (key, ordinal), one per document.
func (w *Writer) AddEntry(band int, e Entry) error {
	if !w.inBands {
		w.startBands()
	}
	if band != w.band {
		if err := w.endBand(band); err != nil {
			return err
		}
	}
	if int(e.Ord) >= len(w.offsets) {
		return fmt.Errorf("segment: band %d entry for ordinal %d of %d documents", band, e.Ord, len(w.offsets))
	}
	if w.inBand > 0 && compareEntries(w.last, e) >= 0 {
		return fmt.Errorf("segment: band %d entries not ascending at (%x, %d)", band, e.Key, e.Ord)
	}
	if w.inBand%BlockEntries == 0 {
		w.fences[band] = append(w.fences[band], e.Key)
	}
	w.pending = append(w.pending, e)
	w.inBand++
	w.last = e
	if w.inBand%BlockEntries == 0 {
		w.flushBlock()
	}
	return w.err
}

func (w *Writer) flushBlock() {
	if len(w.pending) == 0 {
		return
	}
	k := (w.inBand - 1) / BlockEntries
	w.block = appendBlock(w.block[:0], w.pending, ordWidth(uint64(len(w.offsets))))
	w.block = binary.LittleEndian.AppendUint32(w.block, blockCRC(uint64(w.band), k, w.block))
	w.blockPos = append(w.blockPos, w.pos)
	w.write(w.block)
	w.pending = w.pending[:0]
}

// endBand closes the current band, which must have one entry per document, and moves
// to band next.
func (w *Writer) endBand(next int) error {
	w.flushBlock()
	if w.inBand != uint64(len(w.offsets)) {
		return fmt.Errorf("segment: band %d has %d entries for %d documents", w.band, w.inBand, len(w.offsets))
	}
	if next != w.band+1 {
		return fmt.Errorf("segment: band %d after band %d", next, w.band)
	}
	w.band, w.inBand = next, 0
	return nil
}

// Close writes the fences and the footer and flushes. It does not close the
// underlying writer.
func (w *Writer) Close() error {
	if !w.inBands {
		w.startBands()
	}
	if len(w.offsets) == 0 {
		w.band = w.bands - 1 // no entries: every band is empty
	}
	if err := w.endBand(w.bands); err != nil {
		return err
	}
	fencesPos := w.pos
	var b []byte
	for _, f := range w.fences {
		for _, k := range f {
			b = binary.LittleEndian.AppendUint64(b, k)
		}
	}
	for _, p := range append(w.blockPos, fencesPos) {
		b = binary.LittleEndian.AppendUint64(b, p)
	}
	b = binary.LittleEndian.AppendUint32(b, crcOf(b))
	w.write(b)
	w.write(footer{Width: uint32(w.width), Bands: uint32(w.bands), Block: BlockEntries, Docs: uint64(len(w.offsets)),
		Offsets: w.bandsPos - 8*uint64(len(w.offsets)+1), BandsPos: w.bandsPos, Fences: fencesPos}.encode())
	if w.err != nil {
		return w.err
	}
	return w.out.Flush()
}
