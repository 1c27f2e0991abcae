package pipeline

import (
	"fmt"

	"github.com/neardup/neardup/internal/wire"
)

// The gathered partitions are the pipeline's bulk data. Beam's default row coder encodes
// them field by field through reflection, a varint per shingle hash; these coders write
// each batch in one pass with hashes as fixed 8-byte words (internal/wire), which
// profiling showed halves the run time and shrinks what Prism holds in memory.
type (
	encoder = wire.Encoder
	decoder = wire.Decoder
)

type setBatch struct{ Items []SetKey }
type readBatch struct{ Items []ReadRequest }
type locBatch struct{ Items []IDLoc }

// bandBatch holds band entries, or (Spilled) references to local files that hold them
// (internal/spill), each record a run of entries (appendBand, appendRun).
type bandBatch struct {
	Items   []BandEntry
	Spilled []string
}
type edgeBatch struct{ Items []Edge }

// halfBatch holds halves of candidate pairs, or (Spilled) references to local files
// that hold them, each record a run of halves (appendHalf, appendRun).
type halfBatch struct {
	Items   []Half
	Spilled []string
}
type fateBatch struct{ Items []Fate }

func init() {
	wire.RegisterCoder(encodeSets, decodeSets)
	wire.RegisterCoder(encodeReads, decodeReads)
	wire.RegisterCoder(encodeLocs, decodeLocs)
	wire.RegisterCoder(encodeBands, decodeBands)
	wire.RegisterCoder(encodeEdges, decodeEdges)
	wire.RegisterCoder(encodeHalves, decodeHalves)
	wire.RegisterCoder(encodeFates, decodeFates)
	wire.RegisterCoder(encodeLines, decodeLines)
}

// encodeSpillable and decodeSpillable frame a batch that may hold spill references
// (see spill.go) after its items.
func encodeSpillable[T any](items []T, refs []string, size int, put func(*encoder, T)) []byte {
	e := encoder{B: wire.EncodeAll(items, size+8, put)}
	e.Uvarint(uint64(len(refs)))
	for _, r := range refs {
		e.Str(r)
	}
	return e.B
}

func decodeSpillable[T any](b []byte, get func(*decoder) T) ([]T, []string, error) {
	return decodeSpillableFrom(&decoder{B: b}, get)
}

func decodeSpillableFrom[T any](d *decoder, get func(*decoder) T) ([]T, []string, error) {
	items := wire.DecodeItems(d, get)
	var refs []string
	for i, n := uint64(0), d.Uvarint(); i < n && d.Err == nil; i++ {
		refs = append(refs, d.Str())
	}
	return items, refs, d.End()
}

func encodeReads(b readBatch) []byte {
	return wire.EncodeAll(b.Items, 48*len(b.Items), func(e *encoder, r ReadRequest) {
		e.Varint(r.Line)
		e.Str(r.U)
		e.Str(r.V)
		e.Str(r.Node)
	})
}

func decodeReads(b []byte) (readBatch, error) {
	items, err := wire.DecodeAll(b, func(d *decoder) ReadRequest {
		return ReadRequest{Line: d.Varint(), U: d.Str(), V: d.Str(), Node: d.Str()}
	})
	return readBatch{items}, err
}

func encodeSets(b setBatch) []byte {
	return wire.EncodeAll(b.Items, 48*len(b.Items), func(e *encoder, k SetKey) {
		e.U64(k.Hash)
		e.U64(k.Check)
		e.Str(k.ID)
		e.Varint(k.Length)
	})
}

func decodeSets(b []byte) (setBatch, error) {
	items, err := wire.DecodeAll(b, func(d *decoder) SetKey {
		return SetKey{Hash: d.U64(), Check: d.U64(), ID: d.Str(), Length: d.Varint()}
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
	e := encoder{B: make([]byte, 0, 24*len(b.Items)+64*len(files)+8)}
	e.Uvarint(uint64(len(files)))
	for _, f := range files {
		e.Str(f)
	}
	e.Uvarint(uint64(len(b.Items)))
	for _, l := range b.Items {
		e.Str(l.ID)
		e.Uvarint(num[l.File])
		e.Varint(l.Line)
	}
	return e.B
}

func decodeLocs(b []byte) (locBatch, error) {
	d := decoder{B: b}
	var files []string
	for i, n := uint64(0), d.Uvarint(); i < n && d.Err == nil; i++ {
		files = append(files, d.Str())
	}
	items := wire.DecodeItems(&d, func(d *decoder) IDLoc {
		l := IDLoc{ID: d.Str()}
		if f := d.Uvarint(); f < uint64(len(files)) {
			l.File = files[f]
		} else if d.Err == nil {
			d.Err = fmt.Errorf("decode locations: file %d of %d", f, len(files))
		}
		l.Line = d.Varint()
		return l
	})
	return locBatch{items}, d.End()
}

func encodeBands(b bandBatch) []byte {
	return encodeSpillable(b.Items, b.Spilled, 48*len(b.Items), putBand)
}

func decodeBands(b []byte) (bandBatch, error) {
	items, refs, err := decodeSpillableFrom(&decoder{B: b, Whole: string(b)}, getBand)
	return bandBatch{items, refs}, err
}

func putBand(e *encoder, be BandEntry) {
	e.U64(be.Key)
	e.U64(be.Set)
	e.U64(be.Chk)
	e.Str(be.ID)
}

func getBand(d *decoder) BandEntry {
	return BandEntry{Key: d.U64(), Set: d.U64(), Chk: d.U64(), ID: d.Str()}
}

// appendBand appends one band entry to a spilled run of them (featurizeFn.collect).
func appendBand(b []byte, be BandEntry) []byte {
	e := encoder{B: b}
	putBand(&e, be)
	return e.B
}

// appendRun appends the items of a spilled record to items: items one after the other,
// built in place in the spill buffer (appendBand, appendHalf), so with no count before
// them.
func appendRun[T any](items []T, b []byte, get func(*decoder) T) ([]T, error) {
	d := decoder{B: b, Whole: string(b)}
	for len(d.B) > 0 && d.Err == nil {
		items = append(items, get(&d))
	}
	return items, d.Err
}

func encodeEdges(b edgeBatch) []byte {
	return wire.EncodeAll(b.Items, 64*len(b.Items), func(e *encoder, ed Edge) {
		e.Str(ed.U)
		e.Str(ed.V)
		e.F64(ed.Sim)
		e.Varint(ed.ULen)
		e.Varint(ed.VLen)
	})
}

func decodeEdges(b []byte) (edgeBatch, error) {
	items, err := wire.DecodeAll(b, func(d *decoder) Edge {
		return Edge{U: d.Str(), V: d.Str(), Sim: d.F64(), ULen: d.Varint(), VLen: d.Varint()}
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
	items, refs, err := decodeSpillable(b, getHalf)
	return halfBatch{items, refs}, err
}

// putHalf and getHalf code one half, for the runner's coder and for spilled runs alike.
func putHalf(e *encoder, h Half) {
	e.Str(h.U)
	e.Str(h.V)
	e.Str(h.Node)
	e.Hashes(h.Hashes)
	e.Varint(h.Length)
}

func getHalf(d *decoder) Half {
	return Half{U: d.Str(), V: d.Str(), Node: d.Str(), Hashes: d.Hashes(), Length: d.Varint()}
}

// appendHalf appends one half to a spilled run of them (rereadFn).
func appendHalf(b []byte, h Half) []byte {
	e := encoder{B: b}
	putHalf(&e, h)
	return e.B
}

func encodeFates(b fateBatch) []byte {
	return wire.EncodeAll(b.Items, 48*len(b.Items), func(e *encoder, f Fate) {
		e.Str(f.ID)
		e.Str(f.Cluster)
		e.Bool(f.Removed)
		e.F64(f.Sim)
		e.Varint(f.Size)
	})
}

func decodeFates(b []byte) (fateBatch, error) {
	items, err := wire.DecodeAll(b, func(d *decoder) Fate {
		return Fate{ID: d.Str(), Cluster: d.Str(), Removed: d.Bool(), Sim: d.F64(), Size: d.Varint()}
	})
	return fateBatch{items}, err
}

func encodeLines(b lineBatch) []byte {
	size := 0
	for _, l := range b.Items {
		size += len(l.Key) + len(l.Line) + 4
	}
	return wire.EncodeAll(b.Items, size, func(e *encoder, l sortedLine) {
		e.Str(l.Key)
		e.Str(l.Line)
	})
}

func decodeLines(b []byte) (lineBatch, error) {
	items, err := wire.DecodeAll(b, func(d *decoder) sortedLine { return sortedLine{Key: d.Str(), Line: d.Str()} })
	return lineBatch{items}, err
}
