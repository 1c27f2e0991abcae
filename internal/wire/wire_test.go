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

// Front-coded strings decode to what was encoded, whatever they share with the one
// before, Whole set or not; an encoder that saw nothing before writes as many bytes as
// Str for a short string, which a decoder reads whatever it read before; a batch of ids
// sharing their start takes fewer bytes; every cut short is an error.
func TestFrontRoundTrip(t *testing.T) {
	ids := []string{"doc-0000001", "doc-0000017", "doc-0000017", "doc-00000", "", "x", "doc-0000002", "dóc-1", "dóc-2",
		"https://example.com/a/b", "https://example.com/a/c", "8f14e45f-ceea-467a-9f1b-2c1f2b3a4d5e"}
	e := Encoder{}
	for _, s := range ids {
		e.Front(s)
	}
	for _, whole := range []string{"", string(e.B)} {
		d := Decoder{B: e.B, Whole: whole}
		var got []string
		for range ids {
			got = append(got, d.Front())
		}
		require.NoError(t, d.End())
		assert.Equal(t, ids, got)
	}
	plain := Encoder{}
	for _, s := range ids {
		plain.Str(s)
	}
	assert.Less(t, len(e.B), len(plain.B)-20)

	for n := range len(e.B) {
		d := Decoder{B: e.B[:n]}
		for range ids {
			d.Front()
		}
		assert.Error(t, d.End(), "cut at %d of %d bytes", n, len(e.B))
	}

	// Items written by encoders of their own (a spilled run's Append), read by one decoder.
	var run []byte
	for _, s := range ids {
		one := Encoder{B: run}
		one.Front(s)
		str := Encoder{}
		str.Str(s)
		assert.Len(t, one.B[len(run):], len(str.B), "%q", s)
		run = one.B
	}
	d := Decoder{B: run}
	for _, s := range ids {
		assert.Equal(t, s, d.Front())
	}
	require.NoError(t, d.End())
}

// A shared start longer than what the decoder read before is an error, not a panic.
func TestFrontSharedBeyondPrevious(t *testing.T) {
	e := Encoder{}
	e.Front("abcdef")
	e.Front("abcdxy")
	d := Decoder{B: e.B[len(e.B)-4:]} // the second string alone: shares 4 bytes with nothing
	d.Front()
	assert.Error(t, d.End())
}
