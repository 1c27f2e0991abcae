package elem

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roundTrip encodes and decodes b, and checks that every truncation of the encoding is
// an error rather than a shorter batch.
func roundTrip[B any](t *testing.T, b B, enc func(B) []byte, dec func([]byte) (B, error)) B {
	t.Helper()
	data := enc(b)
	got, err := dec(data)
	require.NoError(t, err)
	for n := range len(data) {
		_, err := dec(data[:n])
		require.Error(t, err, "a batch cut to %d of %d bytes decoded", n, len(data))
	}
	_, err = dec(append(data, 0))
	require.Error(t, err, "a trailing byte was accepted")
	return got
}

func TestLocationsShareTheirFileNames(t *testing.T) {
	b := LocBatch{Items: []IDLoc{
		{ID: "a", File: "/data/x.jsonl", Line: 1},
		{ID: "b", File: "/data/y.jsonl", Line: 7},
		{ID: "c", File: "/data/x.jsonl", Line: 1 << 40},
		{ID: "", File: "", Line: 0},
	}}
	assert.Equal(t, b, roundTrip(t, b, locCoder{}.Encode, locCoder{}.Decode))
	one := locCoder{}.Encode(LocBatch{Items: b.Items[:1]})
	four := locCoder{}.Encode(LocBatch{Items: append(b.Items[:1:1], b.Items[0], b.Items[0], b.Items[0])})
	assert.Less(t, len(four)-len(one), 3*len("/data/x.jsonl"), "a repeated file name is written again")
	b.Spilled = []string{"/tmp/a.spill:0+10", "/tmp/b.spill:3+4"}
	assert.Equal(t, b, roundTrip(t, b, locCoder{}.Encode, locCoder{}.Decode), "spill references are kept")
}

func TestClusterLinesRoundTrip(t *testing.T) {
	b := LineBatch{Items: []SortedLine{{Key: "c1", Line: `{"cluster":"c1","size":2}`}, {Key: "", Line: ""}, {Key: "é", Line: "x\ny"}}}
	assert.Equal(t, b, roundTrip(t, b, lineCodec.Encode, lineCodec.Decode))
}

func TestNearBatchesRoundTrip(t *testing.T) {
	n := NewNearBatch()
	n.Add(Edge{U: "a", V: "b", Sim: 0.91, ULen: 10, VLen: 12}, true)
	n.Add(Edge{U: "a", V: "c", Sim: 0.42, ULen: 10, VLen: 1 << 40}, false)
	n.Add(Edge{U: "é", V: "", Sim: 1}, true)
	n.Trim()
	assert.Equal(t, n, roundTrip(t, n, encodeNear, decodeNear))
}

func TestSpillableBatchesCarryTheirFiles(t *testing.T) {
	bands := BandBatch{Items: []BandEntry{{Key: 1, Hash: 2, ID: "d1"}, {Key: ^uint64(0), ID: "d2"}},
		Spilled: []string{"/tmp/s/a-1.spill", "/tmp/s/b-1.spill"}}
	assert.Equal(t, bands, roundTrip(t, bands, Bands.Encode, Bands.Decode))
	halves := HalfBatch{Items: []Half{{U: "a", V: "b", Node: "a", Hashes: []uint64{1, 5, 9}, Length: 12}},
		Spilled: []string{"/tmp/s/c-3.spill"}}
	assert.Equal(t, halves, roundTrip(t, halves, Halves.Encode, Halves.Decode))
	filesOnly := HalfBatch{Spilled: []string{"/tmp/s/c-3.spill"}}
	got := roundTrip(t, filesOnly, Halves.Encode, Halves.Decode)
	assert.Empty(t, got.Items)
	assert.Equal(t, filesOnly.Spilled, got.Spilled)
}

// A spilled run of band entries or of halves (Codec.Append), one item after
// the other with no count, decodes to the same items; a run cut inside an item is an
// error. (A run cut between items cannot reach the decoder: the spill file frames every
// record with its length.)
func TestSpilledRunsDecode(t *testing.T) {
	checkRun(t, []BandEntry{{Key: 1, Hash: 2, ID: "d1"}, {Key: ^uint64(0), ID: ""}, {Key: 7, Hash: 7, ID: "a longer id"}},
		BandEntry{Key: 9, ID: "already there"}, Bands)
	checkRun(t, []Half{{U: "a", V: "b", Node: "a", Hashes: []uint64{1, 2, ^uint64(0)}, Length: 12},
		{V: "bucket 7", Node: "c", Hashes: []uint64{}}, {U: "a", V: "c", Node: "c", Hashes: []uint64{5}, Length: -1}},
		Half{U: "x", V: "y", Node: "y", Hashes: []uint64{3}}, Halves)
}

func checkRun[T any](t *testing.T, items []T, first T, c Codec[T]) {
	t.Helper()
	var run []byte
	var ends []int
	var e encoder
	for _, it := range items {
		run = c.Append(&e, run, it)
		ends = append(ends, len(run))
	}
	got, err := c.AppendRun([]T{first}, run)
	require.NoError(t, err)
	assert.Equal(t, append([]T{first}, items...), got)
	for n := 1; n < len(run); n++ {
		_, err := c.AppendRun(nil, run[:n])
		if slices.Contains(ends, n) {
			assert.NoError(t, err, "cut after an item, at %d", n)
		} else {
			assert.Error(t, err, "cut inside an item, at %d of %d bytes", n, len(run))
		}
	}
}

// SkimHalves gives each half of a run with the place of its hashes in the run: read
// from there, they are the hashes Halves.Append wrote; a run cut inside a half is an error.
func TestSkimmedHalvesPointAtTheirHashes(t *testing.T) {
	halves := []Half{{U: "a", V: "b", Node: "a", Hashes: []uint64{1, 2, ^uint64(0)}, Length: 12},
		{V: "bucket 7", Node: "c", Hashes: []uint64{}}, {U: "a", V: "c", Node: "c", Hashes: []uint64{5}, Length: -1}}
	var run []byte
	var e encoder
	for _, h := range halves {
		run = Halves.Append(&e, run, h)
	}
	var got []Half
	require.NoError(t, SkimHalves(run, func(h Half, off, n int) {
		h.Hashes = make([]uint64, n)
		for i := range h.Hashes {
			h.Hashes[i] = binary.LittleEndian.Uint64(run[off+8*i:])
		}
		got = append(got, h)
	}))
	assert.Equal(t, halves, got)
	assert.Error(t, SkimHalves(run[:len(run)-3], func(Half, int, int) {}))
}

// A First carries every kind at once, each kind's items and spill references, the
// counts and the rejected records.
func TestFirstRoundTrip(t *testing.T) {
	f := First{
		Locs:     LocBatch{Items: []IDLoc{{ID: "a", File: "/data/x.jsonl", Line: 3}}, Spilled: []string{"/tmp/l.spill:0+4"}},
		Sets:     SetBatch{Items: []SetKey{{Hash: 1, Check: 2, ID: "a", Length: 9}}, Spilled: []string{"/tmp/s.spill:0+4"}},
		Bands:    BandBatch{Items: []BandEntry{{Key: 5, Hash: 1, ID: "a"}, {Key: 6, Hash: 1, ID: "é"}}},
		Counts:   []tally.Count{{Name: "shingles", N: 12}, {Name: "largest", N: -1, Max: true}},
		Rejected: []record.Rejected{{File: "/data/x.jsonl", Line: 4, Reason: "invalid JSON"}},
	}
	assert.Equal(t, f, roundTrip(t, f, encodeFirst, decodeFirst))
	empty := roundTrip(t, First{}, encodeFirst, decodeFirst)
	assert.Empty(t, empty.Locs.Items)
	assert.Empty(t, empty.Bands.Items)
	assert.Empty(t, empty.Counts)
}

// Gathering Firsts appends each kind to its own kind.
func TestFirstsGatherByKind(t *testing.T) {
	a := First{Locs: LocBatch{Items: []IDLoc{{ID: "a"}}}, Counts: []tally.Count{{Name: "x", N: 1}}}
	b := First{Locs: LocBatch{Spilled: []string{"r"}}, Bands: BandBatch{Items: []BandEntry{{Key: 1, ID: "b"}}},
		Rejected: []record.Rejected{{File: "f", Line: 2}}}
	got := (&appendFirstFn{}).MergeAccumulators(a, b)
	assert.Equal(t, First{Locs: LocBatch{Items: []IDLoc{{ID: "a"}}, Spilled: []string{"r"}},
		Bands: BandBatch{Items: []BandEntry{{Key: 1, ID: "b"}}}, Counts: []tally.Count{{Name: "x", N: 1}},
		Rejected: []record.Rejected{{File: "f", Line: 2}}}, got)
}
