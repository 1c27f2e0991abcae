// Package wordhash hashes a slice of 64-bit words as its little-endian byte string with
// xxhash64, without copying it on little-endian machines. LSH band keys are such hashes.
package wordhash

import (
	"encoding/binary"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// Sum64 is xxhash64 with the given seed of ws as little-endian bytes.
func Sum64(ws []uint64, seed uint64) uint64 {
	if littleEndian && len(ws) > 0 {
		b := unsafe.Slice((*byte)(unsafe.Pointer(&ws[0])), 8*len(ws))
		if seed == 0 {
			return xxhash.Sum64(b)
		}
		d := xxhash.NewWithSeed(seed)
		_, _ = d.Write(b) // Digest.Write never fails
		return d.Sum64()
	}
	d := xxhash.NewWithSeed(seed)
	var buf [256]byte
	for len(ws) > 0 {
		k := min(len(ws), len(buf)/8)
		for i, w := range ws[:k] {
			binary.LittleEndian.PutUint64(buf[8*i:], w)
		}
		_, _ = d.Write(buf[:8*k])
		ws = ws[k:]
	}
	return d.Sum64()
}

var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()
