// Package segment is the file format of one segment of a neardup index: the indexed
// documents' ids and shingle sets, by ordinal, and per LSH band their band keys sorted,
// so that a new document's band keys are found by a seek and only its candidates' sets
// are read. A segment is written once and never changed; an index is a list of segments
// (package index keeps it in its manifest).
//
// Layout (integers little-endian):
//
//	header   "NDSEG\x00\x00\x01"
//	records  per document, in ordinal order: uvarint id length, id, uvarint set size n,
//	         the set's Elias–Fano bytes (n values of Width bits), CRC-32C of the ordinal
//	         (4 bytes) and the record's preceding bytes
//	offsets  Docs+1 uint64: where each record starts, then where the records end
//	bands    per band, its Docs entries (band key, ordinal) ascending by (key, ordinal),
//	         in blocks of BlockEntries: a byte k, then per entry the key minus the
//	         block's first key in k bytes and the ordinal in 3 bytes (4 from 2^24
//	         documents on), then the CRC-32C of the band number, the block number and
//	         the block's bytes
//	fences   per band, the first key of each block (uint64); the position of every
//	         block, band after band, and the end of the last (uint64); the CRC-32C of
//	         the section
//	footer   FooterSize bytes: "NDSEGEND", version, width, bands, block entries (uint32
//	         each), docs, offsets, bands, fences positions (uint64 each), CRC-32C of
//	         the footer's preceding bytes
//
// Everything read is checked: the footer and fences when the segment is opened, a
// band block or a record when it is read, so a damaged byte is an error naming the file
// and the part, never a wrong answer.
package segment

import (
	"encoding/binary"
	"hash/crc32"
	"math/bits"
)

const (
	headerMagic = "NDSEG\x00\x00\x01"
	footerMagic = "NDSEGEND"
	// Version changes whenever the layout does.
	Version = 1
	// FooterSize is the footer's length in bytes.
	FooterSize = 8 + 4*4 + 4*8 + 4
	// BlockEntries is the number of band entries per checked block: one fence key per
	// block, and a lookup reads about one block per band.
	BlockEntries = 128
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// footer is the decoded footer.
type footer struct {
	Width, Bands, Block uint32
	Docs                uint64
	Offsets, BandsPos   uint64
	Fences              uint64
}

func (f footer) encode() []byte {
	b := make([]byte, 0, FooterSize)
	b = append(b, footerMagic...)
	b = binary.LittleEndian.AppendUint32(b, Version)
	b = binary.LittleEndian.AppendUint32(b, f.Width)
	b = binary.LittleEndian.AppendUint32(b, f.Bands)
	b = binary.LittleEndian.AppendUint32(b, f.Block)
	b = binary.LittleEndian.AppendUint64(b, f.Docs)
	b = binary.LittleEndian.AppendUint64(b, f.Offsets)
	b = binary.LittleEndian.AppendUint64(b, f.BandsPos)
	b = binary.LittleEndian.AppendUint64(b, f.Fences)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// blocksOf is the number of blocks of a band of n entries.
func blocksOf(n uint64) uint64 { return (n + BlockEntries - 1) / BlockEntries }

// ordWidth is the bytes of an ordinal in a segment of docs documents.
func ordWidth(docs uint64) int {
	if docs <= 1<<24 {
		return 3
	}
	return 4
}

// fenceBytes is the size of the fences section.
func fenceBytes(docs uint64, bands uint32) uint64 {
	blocks := blocksOf(docs) * uint64(bands)
	return 8*blocks + 8*(blocks+1) + 4
}

// appendBlock appends the encoding of a block's entries (without its CRC): the key
// width, then the entries. Keys are stored relative to the first, in as few bytes as
// the block's key range needs.
func appendBlock(dst []byte, es []Entry, ow int) []byte {
	first, span := es[0].Key, es[len(es)-1].Key-es[0].Key
	kw := (bits.Len64(span) + 7) / 8
	dst = append(dst, byte(kw))
	var b [8]byte
	for _, e := range es {
		binary.LittleEndian.PutUint64(b[:], e.Key-first)
		dst = append(dst, b[:kw]...)
		binary.LittleEndian.PutUint32(b[:], e.Ord)
		dst = append(dst, b[:ow]...)
	}
	return dst
}

// blockView reads an encoded block's entries.
type blockView struct {
	first  uint64
	kw, ow int
	n      int
	data   []byte // the entries
}

// viewBlock checks that b holds n entries and returns them.
func viewBlock(b []byte, first uint64, n, ow int) (blockView, bool) {
	if len(b) < 1 || b[0] > 8 || len(b) != 1+n*(int(b[0])+ow) {
		return blockView{}, false
	}
	return blockView{first: first, kw: int(b[0]), ow: ow, n: n, data: b[1:]}, true
}

func (v blockView) key(i int) uint64 {
	var b [8]byte
	copy(b[:], v.data[i*(v.kw+v.ow):][:v.kw])
	return v.first + binary.LittleEndian.Uint64(b[:])
}

// run returns the entries [lo, hi) of v whose key is key (keys ascend); hi < v.n when
// the run of key ends inside v.
func (v blockView) run(key uint64) (lo, hi int) {
	lo, hi = 0, v.n
	for lo < hi {
		m := (lo + hi) / 2
		if v.key(m) < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for hi = lo; hi < v.n && v.key(hi) == key; hi++ {
	}
	return lo, hi
}

func (v blockView) at(i int) Entry {
	var b [4]byte
	copy(b[:], v.data[i*(v.kw+v.ow)+v.kw:][:v.ow])
	return Entry{Key: v.key(i), Ord: binary.LittleEndian.Uint32(b[:])}
}

// blockCRC is the checksum of block k of band b.
func blockCRC(band, k uint64, data []byte) uint32 {
	var pre [16]byte
	binary.LittleEndian.PutUint64(pre[:], band)
	binary.LittleEndian.PutUint64(pre[8:], k)
	return crc32.Update(crc32.Checksum(pre[:], castagnoli), castagnoli, data)
}

// recordCRC is the checksum of the record of ordinal ord.
func recordCRC(ord uint64, data []byte) uint32 {
	var pre [8]byte
	binary.LittleEndian.PutUint64(pre[:], ord)
	return crc32.Update(crc32.Checksum(pre[:], castagnoli), castagnoli, data)
}

// Truncate narrows 64-bit shingle hashes to their top width bits, keeping them
// ascending and distinct: the form a segment stores and compares. hs must be ascending;
// the result reuses its memory.
func Truncate(hs []uint64, width int) []uint64 {
	if width >= 64 {
		return hs
	}
	out := hs[:0]
	for _, h := range hs {
		v := h >> (64 - width)
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}

func crcOf(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
