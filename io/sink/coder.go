package sink

import (
	"github.com/neardup/neardup/internal/wire"
)

func init() {
	wire.RegisterCoder(encodeEntries, decodeEntries)
}

// encodeEntries writes a batch of outcomes for the grouping by file. A kept line, the bulk
// of every file's outcomes, is its kind and line number: two to five bytes, where Beam's
// schema coder wrote every field of every entry, by reflection, on the one goroutine that
// decides the documents.
func encodeEntries(b entryBatch) []byte {
	return wire.EncodeAll(b.Items, 4*len(b.Items), func(e *wire.Encoder, it entry) {
		e.Varint(int64(it.Kind))
		e.Varint(it.Line)
		if lineOnly(it.Kind) {
			return
		}
		e.Str(it.ID)
		e.Str(it.Cluster)
		e.F64(it.Similarity)
		e.Str(it.Reason)
		e.Str(it.Index)
		e.Varint(it.Size)
		e.Bool(it.Duplicate)
	})
}

// lineOnly reports whether an outcome of kind k travels as its kind and line alone: the
// kept kinds, which carry nothing else. The encoder and the decoder must agree on it.
func lineOnly(k int32) bool { return k == kindKept || k == kindKeptShown }

func decodeEntries(b []byte) (entryBatch, error) {
	items, err := wire.DecodeAll(b, func(d *wire.Decoder) entry {
		it := entry{Kind: int32(d.Varint()), Line: d.Varint()}
		if lineOnly(it.Kind) {
			return it
		}
		it.ID, it.Cluster, it.Similarity, it.Reason, it.Index = d.Str(), d.Str(), d.F64(), d.Str(), d.Str()
		it.Size, it.Duplicate = d.Varint(), d.Bool()
		return it
	})
	return entryBatch{items}, err
}
