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
//	bands    per band, its Docs entries (band key uint64, ordinal uint32) ascending by
//	         (key, ordinal), in blocks of BlockEntries, each block followed by the
//	         CRC-32C of the band number, the block number and its bytes
//	fences   per band, the first key of each block (uint64), then the CRC-32C of them all
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
	entrySize    = 12
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

// bandBytes is the size of one band's section: its entries and a CRC per block.
func bandBytes(n uint64) uint64 { return n*entrySize + 4*blocksOf(n) }

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
