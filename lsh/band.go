package lsh

import (
	"encoding/binary"
	"fmt"

	"github.com/neardup/neardup/internal/wordhash"
	"github.com/neardup/neardup/minhash"
)

// BandBytes returns datasketch's key for band `band` of a signature:
// values[band*rows : (band+1)*rows], each big-endian, width bytes per value
// (4 for 32-bit schemes such as affine32, 8 for affine64 and legacy). This is
// MinHashLSH._H(hashvalues[band*r:(band+1)*r]) in datasketch, the bytes a
// Python index stores, so buckets can be exchanged with it.
//
// It panics if width is not 4 or 8, if the band lies outside values, or if a
// value does not fit in width bytes: these are programming errors (a signature
// of the wrong scheme), not data errors.
func BandBytes(values []uint64, width int, band, rows int) []byte {
	return AppendBandBytes(make([]byte, 0, width*rows), values, width, band, rows)
}

// AppendBandBytes appends BandBytes(values, width, band, rows) to dst.
func AppendBandBytes(dst []byte, values []uint64, width int, band, rows int) []byte {
	vs := bandValues(values, band, rows)
	switch width {
	case 8:
		for _, v := range vs {
			dst = binary.BigEndian.AppendUint64(dst, v)
		}
	case 4:
		for _, v := range vs {
			if v>>32 != 0 {
				panic(fmt.Sprintf("lsh: value %#x does not fit a 4-byte band key", v))
			}
			dst = binary.BigEndian.AppendUint32(dst, uint32(v))
		}
	default:
		panic(fmt.Sprintf("lsh: band key width %d: want 4 or 8 bytes", width))
	}
	return dst
}

func bandValues(values []uint64, band, rows int) []uint64 {
	if band < 0 || rows < 1 || (band+1)*rows > len(values) {
		panic(fmt.Sprintf("lsh: band %d of %d rows is outside a signature of %d values",
			band, rows, len(values)))
	}
	return values[band*rows : (band+1)*rows]
}

// BandKey returns a 64-bit key for one band: xxhash64 of the band's values as
// little-endian uint64s, XORed with band·φ (φ = 0x9e3779b97f4a7c15) and passed
// through MurmurHash3's fmix64. The pipeline groups documents by it instead of
// by BandBytes because a uint64 key is much cheaper to shuffle.
//
// For a fixed value hash the band mix is a bijection, so equal values in
// different bands always get different keys. Different bands can still collide
// (probability about 2⁻⁶⁴ per pair of distinct bands); a collision only adds a
// candidate pair, which the estimate filter and exact verification then reject,
// so it never causes a wrong removal. (Under --verify none candidates are not
// checked, and a collision would count as a duplicate; at 2⁻⁶⁴ that is far below
// LSH's own false-positive rate.) It panics like BandBytes when the band lies
// outside values.
func BandKey(values []uint64, band, rows int) uint64 {
	vs := bandValues(values, band, rows)
	return minhash.Fmix64(wordhash.Sum64(vs, 0) ^ uint64(band)*0x9e3779b97f4a7c15)
}
