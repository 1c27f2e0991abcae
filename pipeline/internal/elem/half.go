package elem

import (
	"cmp"
	"slices"
)

// Half is one end of a candidate pair (U, V): the shingle set of Node, which is U or V,
// on its way to the pair's partition. A large bucket's member is a Half too
// (BucketMember).
type Half struct {
	U, V   string
	Node   string
	Hashes []uint64
	Length int64
}

// HalfBatch holds halves, or (Spilled) references to local files that hold them, each
// record a run of halves (Codec.Append).
type HalfBatch = Batch[Half]

// Halves codes halves, for the runner and for spilled runs alike. A decoded half's
// strings are copies of their own: sharing the batch's allocation (Codec.Whole) would
// copy the hashes, most of its bytes, a second time.
var Halves = Codec[Half]{
	Put: func(e *encoder, h Half) {
		e.Str(h.U)
		e.Str(h.V)
		e.Str(h.Node)
		e.Hashes(h.Hashes)
		e.Varint(h.Length)
	},
	Get: func(d *decoder) Half {
		return Half{U: d.Str(), V: d.Str(), Node: d.Str(), Hashes: d.Hashes(), Length: d.Varint()}
	},
	Size:   func(h Half) int { return len(h.U) + len(h.V) + len(h.Node) + 8*len(h.Hashes) + 24 },
	Spills: true,
}

func init() { RegisterBatch(Halves) }

// SkimHalves calls fn with each half of a spilled run (Halves.Append) but its hashes, which
// stay in rec: n of them, little-endian words from byte off. The half's strings are
// copies, so nothing fn keeps holds rec.
func SkimHalves(rec []byte, fn func(h Half, off, n int)) error {
	d := decoder{B: rec}
	for len(d.B) > 0 && d.Err == nil {
		h := Half{U: d.Str(), V: d.Str(), Node: d.Str()}
		n := d.Uvarint()
		if uint64(len(d.B))/8 < n {
			d.Fail("hashes")
			break
		}
		off := len(rec) - len(d.B)
		d.B = d.B[8*n:]
		h.Length = d.Varint()
		if d.Err == nil {
			fn(h, off, int(n))
		}
	}
	return d.Err
}

// ChunkHashes bounds the hashes one Half carries through a runner's shuffle: a longer
// set travels as several Halves (Chunks), joined where they meet (JoinChunks).
const ChunkHashes = 8192

// Chunks splits h into Halves of the same pair, node and length, each holding a
// consecutive run of at most n of its sorted hashes; a set of n or fewer is h alone.
func (h Half) Chunks(n int) []Half {
	if len(h.Hashes) <= n {
		return []Half{h}
	}
	out := make([]Half, 0, (len(h.Hashes)+n-1)/n)
	for lo := 0; lo < len(h.Hashes); lo += n {
		c := h
		c.Hashes = h.Hashes[lo:min(lo+n, len(h.Hashes))]
		out = append(out, c)
	}
	return out
}

// JoinChunks returns the set whose chunks (Chunks, in any order) are given: the chunks
// are disjoint runs of one sorted set, so ordered by their first hash they concatenate
// into it. It reports false if they do not (two copies of one chunk, say).
func JoinChunks(chunks [][]uint64) ([]uint64, bool) {
	slices.SortFunc(chunks, func(a, b []uint64) int { return cmp.Compare(a[0], b[0]) })
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	out := make([]uint64, 0, n)
	for _, c := range chunks {
		if len(out) > 0 && c[0] <= out[len(out)-1] {
			return nil, false
		}
		out = append(out, c...)
	}
	return out, true
}

// SameEnd tells whether a and b are the same end of the same pair or bucket (chunks of
// one Half, Chunks).
func SameEnd(a, b Half) bool { return a.Node == b.Node && a.U == b.U && a.V == b.V }

// BucketMember asks for member id's shingle set on behalf of the large buckets whose
// smallest id is pivot. It is a Half whose U is empty (no document id is: a missing one
// becomes FILE:LINE) and whose V is the pivot, so it travels the candidate pairs' path
// to the pivot's partition.
//
// The large buckets that share their smallest id are resolved as one, their union. A
// family of near-copies fills a bucket in every band, each with nearly the same members
// and the same smallest id: as one, each member's set is requested once (locateFn
// merges the bands' requests) and compared about once, not once per band. Resolving a
// union decides every pair of each of its buckets, so the guarantee holds.
func BucketMember(pivot, id string) Half { return Half{V: pivot, Node: id} }

// IsBucketMember tells a large bucket's member from one end of a candidate pair.
func (h Half) IsBucketMember() bool { return h.U == "" }

// partition is where a set meets the others it is compared with: its pair's partition,
// or its large bucket's.
func (h Half) Partition(n int) int {
	if h.IsBucketMember() {
		return PartOfString(h.V, n)
	}
	return PartOfString(h.U+"\x00"+h.V, n)
}
