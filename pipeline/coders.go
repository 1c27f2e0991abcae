package pipeline

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// The gathered partitions are the pipeline's bulk data. Beam's default row coder encodes
// them field by field through reflection, a varint per shingle hash; these coders write
// each batch in one pass with hashes as fixed 8-byte words, which profiling showed
// halves the run time and shrinks what Prism holds in memory.

type setBatch struct{ Items []SetKey }
type readBatch struct{ Items []ReadRequest }
type locBatch struct{ Items []IDLoc }

// bandBatch holds band entries, or (Spilled) the local files that hold them
// (internal/spill), each file a sequence of encoded bandBatches without files.
type bandBatch struct {
	Items   []BandEntry
	Spilled []string
}
type edgeBatch struct{ Items []Edge }

// halfBatch holds halves of candidate pairs, or (Spilled) the local files that hold
// them, each a sequence of encoded halfBatches without files.
type halfBatch struct {
	Items   []Half
	Spilled []string
}
type fateBatch struct{ Items []Fate }

func init() {
	beam.RegisterCoder(reflect.TypeOf(setBatch{}), encodeSets, decodeSets)
	beam.RegisterCoder(reflect.TypeOf(readBatch{}), encodeReads, decodeReads)
	beam.RegisterCoder(reflect.TypeOf(locBatch{}), encodeLocs, decodeLocs)
	beam.RegisterCoder(reflect.TypeOf(bandBatch{}), encodeBands, decodeBands)
	beam.RegisterCoder(reflect.TypeOf(edgeBatch{}), encodeEdges, decodeEdges)
	beam.RegisterCoder(reflect.TypeOf(halfBatch{}), encodeHalves, decodeHalves)
	beam.RegisterCoder(reflect.TypeOf(fateBatch{}), encodeFates, decodeFates)
}

type encoder struct{ b []byte }

func (e *encoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) u64(v uint64)     { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *encoder) f64(v float64)    { e.u64(math.Float64bits(v)) }
func (e *encoder) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) bool(v bool) {
	var b byte
	if v {
		b = 1
	}
	e.b = append(e.b, b)
}
func (e *encoder) hashes(h []uint64) { e.uvarint(uint64(len(h))); e.b = appendWords(e.b, h) }

func appendWords(b []byte, h []uint64) []byte {
	for _, v := range h {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

// decoder reads what encoder wrote; the first error sticks and later reads return zeros.
type decoder struct {
	b   []byte
	err error
	// whole, when set, holds b's bytes as one string, and str returns substrings of it:
	// one allocation per batch instead of one per string. The band entries' ids are
	// millions of small strings, whose allocation and marking by the collector made
	// most of the bucketing step at 10M documents.
	whole string
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("decode batch: truncated %s", what)
	}
	d.b = nil
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) u64() uint64 {
	if len(d.b) < 8 {
		d.fail("word")
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }

func (d *decoder) str() string {
	n := d.uvarint()
	if uint64(len(d.b)) < n {
		d.fail("string")
		return ""
	}
	var s string
	if d.whole != "" {
		off := len(d.whole) - len(d.b)
		s = d.whole[off : off+int(n)]
	} else {
		s = string(d.b[:n])
	}
	d.b = d.b[n:]
	return s
}

func (d *decoder) bool() bool {
	if len(d.b) < 1 {
		d.fail("bool")
		return false
	}
	v := d.b[0] != 0
	d.b = d.b[1:]
	return v
}

func (d *decoder) hashes() []uint64 {
	n := d.uvarint()
	if uint64(len(d.b))/8 < n {
		d.fail("hashes")
		return nil
	}
	h := make([]uint64, n)
	for i := range h {
		h[i] = binary.LittleEndian.Uint64(d.b[8*i:])
	}
	d.b = d.b[8*n:]
	return h
}

// encodeAll and decodeAll frame a batch: its length, then each item.
func encodeAll[T any](items []T, size int, put func(*encoder, T)) []byte {
	e := encoder{b: make([]byte, 0, size)}
	e.uvarint(uint64(len(items)))
	for _, it := range items {
		put(&e, it)
	}
	return e.b
}

func decodeAll[T any](b []byte, get func(*decoder) T) ([]T, error) {
	d := decoder{b: b}
	items := decodeItems(&d, get)
	return items, d.end()
}

// encodeSpillable and decodeSpillable frame a batch that may name spill files (see
// spill.go) after its items.
func encodeSpillable[T any](items []T, files []string, size int, put func(*encoder, T)) []byte {
	e := encoder{b: encodeAll(items, size+8, put)}
	e.uvarint(uint64(len(files)))
	for _, f := range files {
		e.str(f)
	}
	return e.b
}

func decodeSpillable[T any](b []byte, get func(*decoder) T) ([]T, []string, error) {
	return decodeSpillableFrom(&decoder{b: b}, get)
}

func decodeSpillableFrom[T any](d *decoder, get func(*decoder) T) ([]T, []string, error) {
	items := decodeItems(d, get)
	var files []string
	for i, n := uint64(0), d.uvarint(); i < n && d.err == nil; i++ {
		files = append(files, d.str())
	}
	return items, files, d.end()
}

func decodeItems[T any](d *decoder, get func(*decoder) T) []T {
	n := d.uvarint()
	if n > uint64(len(d.b)) { // every item takes at least one byte
		if d.err == nil {
			d.err = fmt.Errorf("decode batch: %d items in %d bytes", n, len(d.b))
		}
		return nil
	}
	items := make([]T, 0, n)
	for i := uint64(0); i < n && d.err == nil; i++ {
		items = append(items, get(d))
	}
	return items
}

// end is the decoder's error, or one for bytes left over.
func (d *decoder) end() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("decode batch: %d trailing bytes", len(d.b))
	}
	return d.err
}

func encodeReads(b readBatch) []byte {
	return encodeAll(b.Items, 48*len(b.Items), func(e *encoder, r ReadRequest) {
		e.varint(r.Line)
		e.str(r.U)
		e.str(r.V)
		e.str(r.Node)
	})
}

func decodeReads(b []byte) (readBatch, error) {
	items, err := decodeAll(b, func(d *decoder) ReadRequest {
		return ReadRequest{Line: d.varint(), U: d.str(), V: d.str(), Node: d.str()}
	})
	return readBatch{items}, err
}

func encodeSets(b setBatch) []byte {
	return encodeAll(b.Items, 48*len(b.Items), func(e *encoder, k SetKey) {
		e.u64(k.Hash)
		e.u64(k.Check)
		e.str(k.ID)
		e.varint(k.Length)
	})
}

func decodeSets(b []byte) (setBatch, error) {
	items, err := decodeAll(b, func(d *decoder) SetKey {
		return SetKey{Hash: d.u64(), Check: d.u64(), ID: d.str(), Length: d.varint()}
	})
	return setBatch{items}, err
}

// encodeLocs writes each file name once per batch, then the locations with their
// file's number in that table: a batch's locations come from a few files, and a path is
// most of a location's bytes (and of what Prism holds for the locations in memory).
func encodeLocs(b locBatch) []byte {
	num := map[string]uint64{}
	var files []string
	for _, l := range b.Items {
		if _, ok := num[l.File]; !ok {
			num[l.File] = uint64(len(files))
			files = append(files, l.File)
		}
	}
	e := encoder{b: make([]byte, 0, 24*len(b.Items)+64*len(files)+8)}
	e.uvarint(uint64(len(files)))
	for _, f := range files {
		e.str(f)
	}
	e.uvarint(uint64(len(b.Items)))
	for _, l := range b.Items {
		e.str(l.ID)
		e.uvarint(num[l.File])
		e.varint(l.Line)
	}
	return e.b
}

func decodeLocs(b []byte) (locBatch, error) {
	d := decoder{b: b}
	var files []string
	for i, n := uint64(0), d.uvarint(); i < n && d.err == nil; i++ {
		files = append(files, d.str())
	}
	items := decodeItems(&d, func(d *decoder) IDLoc {
		l := IDLoc{ID: d.str()}
		if f := d.uvarint(); f < uint64(len(files)) {
			l.File = files[f]
		} else if d.err == nil {
			d.err = fmt.Errorf("decode locations: file %d of %d", f, len(files))
		}
		l.Line = d.varint()
		return l
	})
	return locBatch{items}, d.end()
}

func encodeBands(b bandBatch) []byte {
	return encodeSpillable(b.Items, b.Spilled, 48*len(b.Items), putBand)
}

func decodeBands(b []byte) (bandBatch, error) {
	items, files, err := decodeSpillableFrom(&decoder{b: b, whole: string(b)}, getBand)
	return bandBatch{items, files}, err
}

func putBand(e *encoder, be BandEntry) {
	e.u64(be.Key)
	e.u64(be.Set)
	e.u64(be.Chk)
	e.str(be.ID)
}

func getBand(d *decoder) BandEntry {
	return BandEntry{Key: d.u64(), Set: d.u64(), Chk: d.u64(), ID: d.str()}
}

// appendBand appends one band entry to a spilled run of them (featurizeFn.collect).
func appendBand(b []byte, be BandEntry) []byte {
	e := encoder{b}
	putBand(&e, be)
	return e.b
}

// appendRun appends the items of a spilled record to items: items one after the other,
// built in place in the spill buffer (appendBand, appendHalf), so with no count before
// them.
func appendRun[T any](items []T, b []byte, get func(*decoder) T) ([]T, error) {
	d := decoder{b: b, whole: string(b)}
	for len(d.b) > 0 && d.err == nil {
		items = append(items, get(&d))
	}
	return items, d.err
}

func encodeEdges(b edgeBatch) []byte {
	return encodeAll(b.Items, 64*len(b.Items), func(e *encoder, ed Edge) {
		e.str(ed.U)
		e.str(ed.V)
		e.f64(ed.Sim)
		e.varint(ed.ULen)
		e.varint(ed.VLen)
	})
}

func decodeEdges(b []byte) (edgeBatch, error) {
	items, err := decodeAll(b, func(d *decoder) Edge {
		return Edge{U: d.str(), V: d.str(), Sim: d.f64(), ULen: d.varint(), VLen: d.varint()}
	})
	return edgeBatch{items}, err
}

func encodeHalves(b halfBatch) []byte {
	size := 8
	for _, h := range b.Items {
		size += len(h.U) + len(h.V) + len(h.Node) + 8*len(h.Hashes) + 24
	}
	return encodeSpillable(b.Items, b.Spilled, size, putHalf)
}

func decodeHalves(b []byte) (halfBatch, error) {
	items, files, err := decodeSpillable(b, getHalf)
	return halfBatch{items, files}, err
}

// putHalf and getHalf code one half, for the runner's coder and for spilled runs alike.
func putHalf(e *encoder, h Half) {
	e.str(h.U)
	e.str(h.V)
	e.str(h.Node)
	e.hashes(h.Hashes)
	e.varint(h.Length)
}

func getHalf(d *decoder) Half {
	return Half{U: d.str(), V: d.str(), Node: d.str(), Hashes: d.hashes(), Length: d.varint()}
}

// appendHalf appends one half to a spilled run of them (rereadFn).
func appendHalf(b []byte, h Half) []byte {
	e := encoder{b}
	putHalf(&e, h)
	return e.b
}

func encodeFates(b fateBatch) []byte {
	return encodeAll(b.Items, 48*len(b.Items), func(e *encoder, f Fate) {
		e.str(f.ID)
		e.str(f.Cluster)
		e.bool(f.Removed)
		e.f64(f.Sim)
		e.varint(f.Size)
	})
}

func decodeFates(b []byte) (fateBatch, error) {
	items, err := decodeAll(b, func(d *decoder) Fate {
		return Fate{ID: d.str(), Cluster: d.str(), Removed: d.bool(), Sim: d.f64(), Size: d.varint()}
	})
	return fateBatch{items}, err
}
