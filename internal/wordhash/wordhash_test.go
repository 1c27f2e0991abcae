package wordhash

import (
	"encoding/binary"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/assert"
)

func TestSum64IsXXHashOfLittleEndianBytes(t *testing.T) {
	for _, ws := range [][]uint64{nil, {1}, {0xdeadbeef, 1 << 63, 42}, make([]uint64, 100)} {
		b := make([]byte, 0, 8*len(ws))
		for _, w := range ws {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
		assert.Equal(t, xxhash.Sum64(b), Sum64(ws, 0))
		d := xxhash.NewWithSeed(7)
		d.Write(b)
		assert.Equal(t, d.Sum64(), Sum64(ws, 7))
		assert.NotEqual(t, Sum64(ws, 0), Sum64(ws, 7), "seeds give different hashes")
	}
}

// The portable path (big-endian machines) hashes the same bytes, across its chunks.
func TestSum64PortablePath(t *testing.T) {
	ws := make([]uint64, 128)
	for i := range ws {
		ws[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	for _, n := range []int{0, 1, 13, 32, 33, 100, 128} {
		fast := Sum64(ws[:n], 3)
		littleEndian = false
		portable := Sum64(ws[:n], 3)
		littleEndian = true
		assert.Equal(t, fast, portable, "n=%d", n)
	}
}
