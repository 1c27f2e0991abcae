package sink

import (
	"github.com/neardup/neardup/internal/wire"
	"github.com/neardup/neardup/record"
)

func init() {
	wire.RegisterCoder(encodeEntries, decodeEntries)
	wire.RegisterCoder(encodeDecisions, decodeDecisions)
}

// Flags of an encoded Decision: its two booleans, and which of its optional fields follow.
const (
	decRemoved = 1 << iota
	decShown
	decOwnCluster // Cluster is ID: not written
	decSimilarity
	decIndex
)

// encodeDecisions writes the pipeline's decisions for the writers, one per document. Beam's
// fuser, which the Flink and Spark runners use, starts a stage at a ParDo with a side
// input, so there this batch crosses the runner: as opaque bytes, where Beam's schema
// coder made the runner decode and re-encode every field of every Decision. A batch
// comes from one partition of the decisions, so its files repeat and are front-coded.
func encodeDecisions(b record.Decisions) []byte {
	return wire.EncodeAll(b.Items, 24*len(b.Items), func(e *wire.Encoder, d record.Decision) {
		var flags uint64
		if d.Removed {
			flags |= decRemoved
		}
		if d.Shown {
			flags |= decShown
		}
		if d.Cluster == d.ID {
			flags |= decOwnCluster
		}
		if d.Similarity != 0 {
			flags |= decSimilarity
		}
		if d.Index != "" {
			flags |= decIndex
		}
		e.Front(d.File)
		e.Varint(d.Line)
		e.Str(d.ID)
		e.Uvarint(flags)
		if flags&decOwnCluster == 0 {
			e.Str(d.Cluster)
		}
		if flags&decSimilarity != 0 {
			e.F64(d.Similarity)
		}
		e.Varint(d.ClusterSize)
		if flags&decIndex != 0 {
			e.Str(d.Index)
		}
	})
}

func decodeDecisions(b []byte) (record.Decisions, error) {
	d := wire.Decoder{B: b, Whole: string(b)}
	items := wire.DecodeItems(&d, func(d *wire.Decoder) record.Decision {
		it := record.Decision{File: d.Front(), Line: d.Varint(), ID: d.Str()}
		flags := d.Uvarint()
		it.Removed, it.Shown = flags&decRemoved != 0, flags&decShown != 0
		it.Cluster = it.ID
		if flags&decOwnCluster == 0 {
			it.Cluster = d.Str()
		}
		if flags&decSimilarity != 0 {
			it.Similarity = d.F64()
		}
		it.ClusterSize = d.Varint()
		if flags&decIndex != 0 {
			it.Index = d.Str()
		}
		return it
	})
	return record.Decisions{Items: items}, d.End()
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
