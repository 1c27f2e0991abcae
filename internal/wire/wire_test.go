package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type item struct {
	N    int64
	U    uint64
	F    float64
	S    string
	B    bool
	Hash []uint64
}

func put(e *Encoder, it item) {
	e.Varint(it.N)
	e.U64(it.U)
	e.F64(it.F)
	e.Str(it.S)
	e.Bool(it.B)
	e.Hashes(it.Hash)
}

func get(d *Decoder) item {
	return item{N: d.Varint(), U: d.U64(), F: d.F64(), S: d.Str(), B: d.Bool(), Hash: d.Hashes()}
}

// A batch decodes to what was encoded, with or without Whole; every cut short of its end,
// and any byte after it, is an error rather than a shorter batch.
func TestBatchesRoundTripAndCutsFail(t *testing.T) {
	items := []item{{N: -3, U: ^uint64(0), F: 0.5, S: "héllo", B: true, Hash: []uint64{1, 2}}, {Hash: []uint64{}}, {N: 1 << 40, S: "x", Hash: []uint64{}}}
	b := EncodeAll(items, 0, put)
	got, err := DecodeAll(b, get)
	require.NoError(t, err)
	assert.Equal(t, items, got)

	d := Decoder{B: b, Whole: string(b)}
	got = DecodeItems(&d, get)
	require.NoError(t, d.End())
	assert.Equal(t, items, got)

	for n := range len(b) {
		_, err := DecodeAll(b[:n], get)
		assert.Error(t, err, "cut at %d of %d bytes", n, len(b))
	}
	_, err = DecodeAll(append(b, 0), get)
	assert.ErrorContains(t, err, "trailing")
}
