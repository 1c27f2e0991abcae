package elem

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The bytes each batch coder writes, spelled out from the format (internal/wire): a
// count or a length is a uvarint, an int64 a zig-zag varint, a hash or a float64 an
// 8-byte little-endian word, a bool one byte, a string its length and its bytes. Spill
// files and the runners hold these bytes, so a change to them must show here. An id
// front-coded against the batch's id before it (wire.Encoder.Front) is the length of
// what it does not share, doubled, plus one when it shares, then the length it shares
// when it does, then its bytes.
func TestBatchEncodingsAreTheWireFormat(t *testing.T) {
	w := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	f := func(v float64) []byte { return w(math.Float64bits(v)) }
	s := func(v string) []byte { return append([]byte{byte(len(v))}, v...) }
	id := func(v string) []byte { return append([]byte{byte(len(v) << 1)}, v...) }
	idAfter := func(shared int, v string) []byte { return append([]byte{byte(len(v)<<1 | 1), byte(shared)}, v...) }
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	e1 := Edge{U: "a", V: "bc", Sim: 0.5, ULen: 3, VLen: 200}
	e1Bytes := cat(s("a"), s("bc"), f(0.5), []byte{6, 0x90, 0x03})
	e2 := Edge{U: "d", V: "", Sim: 1, ULen: -1, VLen: 0}
	e2Bytes := cat(s("d"), s(""), f(1), []byte{1, 0})

	for _, c := range []struct {
		name      string
		got, want []byte
	}{
		{"edges", Edges.Encode(EdgeBatch{Items: []Edge{e1, e2}}), cat([]byte{2}, e1Bytes, e2Bytes, []byte{0})},
		{"edges, spilled", Edges.Encode(EdgeBatch{Spilled: []string{"/s/f"}}), cat([]byte{0}, []byte{1}, s("/s/f"))},
		{"no edges", Edges.Encode(EdgeBatch{}), []byte{0, 0}},
		{"fates", fateCodec.Encode(FateBatch{Items: []Fate{{ID: "x", Cluster: "c", Removed: true, Sim: 0.25, Size: 2}, {ID: "y"}}}),
			cat([]byte{2}, s("x"), s("c"), []byte{1}, f(0.25), []byte{4}, s("y"), s(""), []byte{0}, f(0), []byte{0})},
		{"sets", Sets.Encode(SetBatch{Items: []SetKey{{Hash: 1 << 63, Check: 5, ID: "id", Length: -2}}, Spilled: []string{"/s/e"}}),
			cat([]byte{1}, w(1<<63), w(5), id("id"), []byte{3}, []byte{1}, s("/s/e"))},
		{"lines", lineCodec.Encode(LineBatch{Items: []SortedLine{{Key: "k", Line: "{}"}, {Key: "é"}}}),
			cat([]byte{2}, s("k"), s("{}"), s("é"), s(""))},
		{"locations", locCoder{}.Encode(LocBatch{Items: []IDLoc{{ID: "a", File: "f.jsonl", Line: 1}, {ID: "b", File: "g", Line: 64}, {ID: "c", File: "f.jsonl", Line: 2}}}),
			cat([]byte{2}, s("f.jsonl"), s("g"), []byte{3}, id("a"), []byte{0, 2}, id("b"), []byte{1, 0x80, 0x01}, id("c"), []byte{0, 4}, []byte{0})},
		{"locations, spilled", locCoder{}.Encode(LocBatch{Items: []IDLoc{{ID: "a", File: "f", Line: 1}}, Spilled: []string{"/s/d"}}),
			cat([]byte{1}, s("f"), []byte{1}, id("a"), []byte{0, 2}, []byte{1}, s("/s/d"))},
		{"bands", Bands.Encode(BandBatch{Items: []BandEntry{{Key: 7, Hash: 8, ID: "z"}}, Spilled: []string{"/s/a", "/s/b"}}),
			cat([]byte{1}, w(7), w(8), id("z"), []byte{2}, s("/s/a"), s("/s/b"))},
		{"bands, ids sharing their start", Bands.Encode(BandBatch{Items: []BandEntry{{Key: 1, Hash: 2, ID: "doc-17"}, {Key: 3, Hash: 4, ID: "doc-18"}, {Key: 5, Hash: 6, ID: "doc-18"}}}),
			cat([]byte{3}, w(1), w(2), id("doc-17"), w(3), w(4), idAfter(5, "8"), w(5), w(6), idAfter(6, ""), []byte{0})},
		{"bands, no files", Bands.Encode(BandBatch{Items: []BandEntry{{ID: "z"}}}),
			cat([]byte{1}, w(0), w(0), id("z"), []byte{0})},
		{"halves", Halves.Encode(HalfBatch{Items: []Half{{U: "u", V: "v", Node: "v", Hashes: []uint64{3, 1 << 40}, Length: 5}}, Spilled: []string{"/s/c"}}),
			cat([]byte{1}, s("u"), s("v"), s("v"), []byte{2}, w(3), w(1<<40), []byte{10}, []byte{1}, s("/s/c"))},
		{"near pairs", encodeNear(NearBatch{Verified: []int64{0, 3}, False: []int64{-1}, Lowest: []Edge{e1}, Highest: []Edge{e2, e1}}),
			cat([]byte{2, 0, 6}, []byte{1, 1}, []byte{1}, e1Bytes, []byte{2}, e2Bytes, e1Bytes)},
	} {
		assert.Equal(t, c.want, c.got, c.name)
	}
	// A spilled run is its items one after the other, with no count, each id written as
	// one that shares nothing, though one encoder wrote them.
	var e encoder
	assert.Equal(t, cat(w(7), w(8), id("doc-1"), w(1), w(2), id("doc-2")),
		Bands.Append(&e, Bands.Append(&e, nil, BandEntry{Key: 7, Hash: 8, ID: "doc-1"}), BandEntry{Key: 1, Hash: 2, ID: "doc-2"}))
	assert.Equal(t, cat(s("u"), s("v"), s("u"), []byte{1}, w(9), []byte{0x7f}),
		Halves.Append(&e, nil, Half{U: "u", V: "v", Node: "u", Hashes: []uint64{9}, Length: -64}))
}
