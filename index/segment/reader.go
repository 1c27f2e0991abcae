package segment

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/io/files"
)

// Reader reads a segment by random access: it holds the footer and the fences, and
// reads a band block or a record when asked. It is safe for concurrent use.
type Reader struct {
	path   string
	r      files.ReaderAt
	mapped []byte        // the whole file, when it is local: reads are then copies
	reads  atomic.Uint64 // reads from mapped, for checkEvery
	// checked has a bit per band block of mapped whose checksum passed: a mapping of the
	// file, which no one writes, shows a block the same bytes on every read, so each
	// is checked once per Reader, not on every lookup, which reads a few lines of a
	// block where the checksum reads all of it.
	checked []atomic.Uint64
	f       footer
	size    int64
	fences  [][]uint64
	pos     []uint64 // block positions, band after band, and the end of the last
	ow      int
	bufs    sync.Pool
}

// DamagedError is a segment whose bytes fail a check.
type DamagedError struct {
	Path, What string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("segment file %s is damaged: %s; rebuild the index or restore the file", e.Path, e.What)
}

func (r *Reader) damaged(format string, args ...any) error {
	return &DamagedError{Path: r.path, What: fmt.Sprintf(format, args...)}
}

// Open opens the segment at path (local or gs://) and checks its footer and fences.
func Open(ctx context.Context, path string) (*Reader, error) {
	ra, ok, err := files.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("segment file %s: %w", path, err)
	}
	if !ok {
		return nil, fmt.Errorf("segment file %s: cannot be read by offset (compressed, or not a local or gs:// path)", path)
	}
	r := &Reader{path: path, r: ra, size: ra.Size()}
	if files.IsLocal(path) {
		r.mapped = mapFile(path, r.size)
	}
	if err := r.load(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// checkEvery is the number of reads from a mapped file between two looks at the
// process's file-backed resident memory; when that exceeds MaxResident, the mapping's
// pages are dropped from the resident set (the page cache keeps them). Dropping costs
// little, but every page read after it faults again: an index whose blocks and records
// fit in MaxResident stays mapped, and a larger one is dropped only once reads have
// brought MaxResident of it in, so the resident part stays bounded whatever the index
// size and the faults per read fall as MaxResident grows.
const checkEvery = 1 << 12

// MaxResident bounds the file-backed resident memory a process reading mapped segments
// keeps (see checkEvery). Set it before reading.
var MaxResident int64 = 1 << 30

// view returns the n bytes at off: a slice of the mapped file, or read into buf.
func (r *Reader) view(buf []byte, off, n uint64) ([]byte, error) {
	if off+n > uint64(r.size) {
		return nil, r.damaged("%d bytes at offset %d lie past its end (%d bytes)", n, off, r.size)
	}
	if r.mapped != nil {
		if r.reads.Add(1)%checkEvery == 0 && residentFileBytes() > MaxResident {
			dropPages(r.mapped)
		}
		return r.mapped[off : off+n : off+n], nil
	}
	buf = slices.Grow(buf[:0], int(n))[:n]
	return buf, r.readAt(buf, off)
}

func (r *Reader) readAt(b []byte, off uint64) error {
	if off+uint64(len(b)) > uint64(r.size) {
		return r.damaged("%d bytes at offset %d lie past its end (%d bytes)", len(b), off, r.size)
	}
	n, err := r.r.ReadAt(b, int64(off))
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("segment file %s: read %d bytes at %d: %w", r.path, len(b), off, err)
}

func (r *Reader) load() error {
	if r.size < int64(len(headerMagic)+FooterSize) {
		return r.damaged("%d bytes, shorter than a header and a footer", r.size)
	}
	head := make([]byte, len(headerMagic))
	if err := r.readAt(head, 0); err != nil {
		return err
	}
	if string(head) != headerMagic {
		return r.damaged("no segment header (not a neardup segment, or another version)")
	}
	b := make([]byte, FooterSize)
	if err := r.readAt(b, uint64(r.size)-FooterSize); err != nil {
		return err
	}
	if string(b[:8]) != footerMagic {
		return r.damaged("no footer at its end (truncated or partially written)")
	}
	if crcOf(b[:FooterSize-4]) != binary.LittleEndian.Uint32(b[FooterSize-4:]) {
		return r.damaged("footer checksum mismatch")
	}
	le := binary.LittleEndian
	if v := le.Uint32(b[8:]); v != Version {
		return r.damaged("segment version %d, this neardup reads version %d", v, Version)
	}
	f := footer{Width: le.Uint32(b[12:]), Bands: le.Uint32(b[16:]), Block: le.Uint32(b[20:]), Docs: le.Uint64(b[24:]),
		Offsets: le.Uint64(b[32:]), BandsPos: le.Uint64(b[40:]), Fences: le.Uint64(b[48:])}
	nb := blocksOf(f.Docs)
	fb := fenceBytes(f.Docs, f.Bands)
	switch {
	case f.Width < 1 || f.Width > 64 || f.Bands < 1 || f.Bands > 1<<16 || f.Block != BlockEntries || f.Docs >= 1<<32:
		return r.damaged("footer: width %d, bands %d, block %d, documents %d", f.Width, f.Bands, f.Block, f.Docs)
	case f.Offsets+8*(f.Docs+1) != f.BandsPos, f.BandsPos > f.Fences,
		f.Fences+fb+FooterSize != uint64(r.size):
		return r.damaged("footer positions do not fit its %d bytes", r.size)
	}
	r.f, r.ow = f, ordWidth(f.Docs)
	b = make([]byte, fb)
	if err := r.readAt(b, f.Fences); err != nil {
		return err
	}
	if crcOf(b[:len(b)-4]) != le.Uint32(b[len(b)-4:]) {
		return r.damaged("fence checksum mismatch")
	}
	blocks := nb * uint64(f.Bands)
	all := make([]uint64, 2*blocks+1)
	for i := range all {
		all[i] = le.Uint64(b[8*i:])
	}
	r.fences = make([][]uint64, f.Bands)
	for band := range r.fences {
		r.fences[band] = all[uint64(band)*nb : uint64(band+1)*nb]
	}
	r.pos = all[blocks:]
	if r.pos[0] != f.BandsPos || r.pos[blocks] != f.Fences {
		return r.damaged("fence block positions do not fit the band section")
	}
	for i := 1; i < len(r.pos); i++ {
		if r.pos[i] <= r.pos[i-1] {
			return r.damaged("fence block positions not ascending")
		}
	}
	if r.mapped != nil {
		r.checked = make([]atomic.Uint64, (blocks+63)/64)
	}
	return nil
}

// Path is the file the segment was opened from.
func (r *Reader) Path() string { return r.path }

// Docs is the number of documents.
func (r *Reader) Docs() int { return int(r.f.Docs) }

// Width is the width in bits of the stored shingle hashes.
func (r *Reader) Width() int { return int(r.f.Width) }

// Bands is the number of band keys per document.
func (r *Reader) Bands() int { return int(r.f.Bands) }

// Close closes the file.
// Close closes the file; no read may be running or follow.
func (r *Reader) Close() error {
	if r.mapped != nil {
		unmapFile(r.mapped)
		r.mapped = nil
	}
	return r.r.Close()
}

// block reads and checks block k of band into buf.
func (r *Reader) block(band int, k uint64, buf []byte) (blockView, []byte, error) {
	off, end, err := r.blockSpan(band, k)
	if err != nil {
		return blockView{}, buf, err
	}
	b, err := r.view(buf, off, end-off)
	if err != nil {
		return blockView{}, buf, err
	}
	if r.mapped == nil {
		buf = b
	}
	idx := uint64(band)*blocksOf(r.f.Docs) + k
	word, bit := idx/64, uint64(1)<<(idx%64)
	check := r.checked == nil || r.checked[word].Load()&bit == 0
	v, err := r.viewBlock(band, k, b, check)
	if err == nil && check && r.checked != nil {
		r.checked[word].Or(bit)
	}
	return v, buf, err
}

// blockSpan is where block k of band lies in the file: [off, end).
func (r *Reader) blockSpan(band int, k uint64) (off, end uint64, err error) {
	n := min(BlockEntries, r.f.Docs-k*BlockEntries)
	idx := uint64(band)*blocksOf(r.f.Docs) + k
	off, end = r.pos[idx], r.pos[idx+1]
	if end-off < 5 || end-off > 1+n*12+4 {
		return 0, 0, r.damaged("band %d, block %d: %d bytes", band, k, end-off)
	}
	return off, end, nil
}

// viewBlock reads block k of band from its bytes b (those of blockSpan), checking its
// checksum when check is set.
func (r *Reader) viewBlock(band int, k uint64, b []byte, check bool) (blockView, error) {
	n := min(BlockEntries, r.f.Docs-k*BlockEntries)
	data := b[:len(b)-4]
	if check && blockCRC(uint64(band), k, data) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return blockView{}, r.damaged("band %d, block %d: checksum mismatch", band, k)
	}
	v, ok := viewBlock(data, r.fences[band][k], int(n), r.ow)
	if !ok || v.key(0) != r.fences[band][k] {
		return blockView{}, r.damaged("band %d, block %d: malformed", band, k)
	}
	return v, nil
}

// Lookup calls fn with the ordinal of every document whose key in band is key,
// ascending. It reads the blocks that can hold the key: usually one.
func (r *Reader) Lookup(band int, key uint64, fn func(ord uint32)) error {
	if band < 0 || band >= int(r.f.Bands) {
		return fmt.Errorf("segment file %s: band %d of %d", r.path, band, r.f.Bands)
	}
	fence := r.fences[band]
	// The run of key starts in the last block whose first key is below key, or in the
	// first block when none is.
	k, _ := slices.BinarySearch(fence, key)
	k = max(k-1, 0)
	bp, _ := r.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	defer r.bufs.Put(bp)
	for ; k < len(fence) && fence[k] <= key; k++ {
		v, buf, err := r.block(band, uint64(k), *bp)
		*bp = buf
		if err != nil {
			return err
		}
		lo, hi := v.run(key)
		for i := lo; i < hi; i++ {
			ord, err := r.entryOrd(v, band, uint64(k), i)
			if err != nil {
				return err
			}
			fn(ord)
		}
		if hi < v.n {
			return nil
		}
	}
	return nil
}

// entryOrd returns the ordinal of entry i of v, block k of band, checked against the
// segment's document count.
func (r *Reader) entryOrd(v blockView, band int, k uint64, i int) (uint32, error) {
	ord := v.at(i).Ord
	if uint64(ord) >= r.f.Docs {
		return 0, r.damaged("band %d, block %d: ordinal %d of %d documents", band, k, ord, r.f.Docs)
	}
	return ord, nil
}

// Record reads the raw record of ordinal ord, checked, into buf.
func (r *Reader) Record(ord uint32, buf []byte) ([]byte, error) {
	if uint64(ord) >= r.f.Docs {
		return nil, fmt.Errorf("segment file %s: ordinal %d of %d documents", r.path, ord, r.f.Docs)
	}
	var obuf [16]byte
	ob, err := r.view(obuf[:], r.f.Offsets+8*uint64(ord), 16)
	if err != nil {
		return nil, err
	}
	start, end, err := r.recordSpan(ord, ob)
	if err != nil {
		return nil, err
	}
	buf, err = r.view(buf, start, end-start)
	if err != nil {
		return nil, err
	}
	return buf, r.checkRecord(ord, buf)
}

// recordSpan is where the record of ordinal ord lies in the file, [start, end), from
// its two offsets ob (16 bytes).
func (r *Reader) recordSpan(ord uint32, ob []byte) (start, end uint64, err error) {
	start, end = binary.LittleEndian.Uint64(ob[:]), binary.LittleEndian.Uint64(ob[8:])
	if start < uint64(len(headerMagic)) || end <= start+4 || end > r.f.Offsets || end-start > 1<<30 {
		return 0, 0, r.damaged("document %d: record offsets %d..%d out of range", ord, start, end)
	}
	return start, end, nil
}

// checkRecord checks the checksum of the record rec of ordinal ord.
func (r *Reader) checkRecord(ord uint32, rec []byte) error {
	n := len(rec) - 4
	if recordCRC(uint64(ord), rec[:n]) != binary.LittleEndian.Uint32(rec[n:]) {
		return r.damaged("document %d: record checksum mismatch", ord)
	}
	return nil
}

// Doc reads document ord: its id and its set (width-bit values, ascending), appended to
// set[:0].
func (r *Reader) Doc(ord uint32, set []uint64) (string, []uint64, error) {
	bp, _ := r.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	defer r.bufs.Put(bp)
	rec, err := r.Record(ord, *bp)
	if err != nil {
		return "", set, err
	}
	if r.mapped == nil {
		*bp = rec[:cap(rec)]
	}
	return r.decodeDoc(ord, rec, set)
}

// decodeDoc decodes the checked record rec of ordinal ord: its id and its set, appended
// to set[:0].
func (r *Reader) decodeDoc(ord uint32, rec []byte, set []uint64) (string, []uint64, error) {
	id, set, err := decodeRecord(rec[:len(rec)-4], int(r.f.Width), set[:0])
	if err != nil {
		return "", set, r.damaged("document %d: %v", ord, err)
	}
	return id, set, nil
}

// decodeRecord decodes a record's bytes (without its checksum).
func decodeRecord(b []byte, width int, set []uint64) (string, []uint64, error) {
	l, k := binary.Uvarint(b)
	if k <= 0 || l > uint64(len(b)-k) {
		return "", set, fmt.Errorf("bad id length")
	}
	id := string(b[k : k+int(l)])
	b = b[k+int(l):]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b))*8+1 {
		return "", set, fmt.Errorf("bad set size")
	}
	set, err := decodeEF(set, b[k:], int(n), width)
	return id, set, err
}

// Band calls fn with every entry of band, ascending: for merging segments.
func (r *Reader) Band(band int, fn func(Entry) error) error {
	var buf []byte
	for k := range uint64(len(r.fences[band])) {
		v, b, err := r.block(band, k, buf)
		buf = b
		if err != nil {
			return err
		}
		for i := range v.n {
			if err := fn(v.at(i)); err != nil {
				return err
			}
		}
	}
	return nil
}
