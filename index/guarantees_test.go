package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/index/segment"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A segment of the same size with one byte changed fails Verify (index --info) on its
// SHA-256, naming the file.
func TestSegmentFlippedByteFailsChecksum(t *testing.T) {
	dir := t.TempDir()
	m := addSegment(t, dir, NewSegmented(testParams, 32), "a", 30)
	require.NoError(t, m.Verify(context.Background(), dir))
	p := filepath.Join(dir, m.Segments[0].Path)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	b[len(b)/2] ^= 0x01
	require.NoError(t, os.WriteFile(p, b, 0o644))
	err = m.Verify(context.Background(), dir)
	require.ErrorContains(t, err, "segment file "+m.Segments[0].Path+" is damaged: its SHA-256 is", "a flipped byte")
}

// A pair whose Jaccard is exactly the threshold (4 of 5 hashes at 0.8) is a match, in
// Near and in Batch alike; one just under it (4 of 6) is not.
func TestMatchAtExactlyTheThreshold(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	h := func(i uint64) uint64 { return i << 40 } // distinct in the stored 32 bits
	keys := make([]uint64, testParams.Bands)
	for b := range keys {
		keys[b] = 1000 + uint64(b)
	}
	_, err := AddSegment(ctx, dir, NewSegmented(testParams, 32), func(b *segment.Builder) (int64, error) {
		return 4, b.Add("four", []uint64{h(1), h(2), h(3), h(4)}, keys)
	})
	require.NoError(t, err)
	s, err := OpenSegments(ctx, dir, testParams)
	require.NoError(t, err)
	defer s.Close()
	at := []uint64{h(5), h(1), h(2), h(3), h(4)}          // J = 4/5 = 0.8
	under := []uint64{h(1), h(2), h(3), h(4), h(5), h(6)} // J = 4/6
	var near [][]Match
	for _, q := range [][]uint64{at, under} {
		var ms []Match
		require.NoError(t, s.Near(q, keys, &Scratch{}, func(m Match) { ms = append(ms, m) }))
		near = append(near, ms)
	}
	want := [][]Match{{{ID: "four", Jaccard: 0.8}}, nil}
	require.True(t, slices.EqualFunc(near, want, func(a, b []Match) bool { return slices.Equal(a, b) }), "Near: %v, want %v", near, want)
	bt := s.NewBatch()
	for _, q := range [][]uint64{at, under} {
		require.NoError(t, bt.Add(s.Prepare(q), keys))
	}
	batch := make([][]Match, 2)
	require.NoError(t, bt.Run(func(q int, m Match) { batch[q] = append(batch[q], m) }))
	require.True(t, slices.EqualFunc(batch, want, func(a, b []Match) bool { return slices.Equal(a, b) }), "Batch: %v, want %v", batch, want)
}

// The newest segments merge while the next older holds at most MergeFactor times their
// documents: at exactly that many it merges, one more and it does not.
func TestMergeRuleBoundary(t *testing.T) {
	segs := func(docs ...int64) []SegmentEntry {
		var out []SegmentEntry
		for _, d := range docs {
			out = append(out, SegmentEntry{Documents: d})
		}
		return out
	}
	for _, c := range []struct {
		docs []int64
		want int
	}{
		{[]int64{MergeFactor * 100, 100}, 0},
		{[]int64{MergeFactor*100 + 1, 100}, 1},
		{[]int64{MergeFactor * 150, 100, 50}, 0},
		{[]int64{MergeFactor*150 + 1, 100, 50}, 1},
		{[]int64{100}, 0},
	} {
		assert.Equal(t, c.want, tierStart(segs(c.docs...)), "tierStart(%v)", c.docs)
	}
}

// A commit makes its files durable before publishing them, and the manifest durable
// before deleting anything: segment synced, renamed from its partial name, its
// directory synced; then the manifest written, synced, renamed, the index directory
// synced; only then the retired files removed.
func TestCommitOrderOfDurableSteps(t *testing.T) {
	dir := t.TempDir()
	m := addSegment(t, dir, NewSegmented(testParams, 32), "a", 40)
	var ops []string
	norm := func(p string) string {
		p = strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
		if strings.HasPrefix(p, "gen-") {
			_, rest, _ := strings.Cut(p, "/")
			p = strings.TrimSuffix("GEN/"+rest, "/") // the generation directory's random name
		}
		if p == "" {
			p = "."
		}
		return p
	}
	onFsOp = func(op, p string) { ops = append(ops, op+" "+norm(p)) }
	defer func() { onFsOp = nil }()
	m2 := addSegment(t, dir, m, "b", 40) // merges with the first: retires it
	want := []string{
		"sync GEN/segment-00000.nds.partial", "rename GEN/segment-00000.nds.partial", "syncdir GEN",
		"sync GEN/merged-segment-00000.nds.partial", "rename GEN/merged-segment-00000.nds.partial", "syncdir GEN",
		"remove GEN/segment-00000.nds",
		"write .manifest.json.tmp-2", "sync .manifest.json.tmp-2", "rename .manifest.json.tmp-2", "syncdir .",
	}
	require.Equal(t, want, ops, "durable steps")
	// The third commit deletes what the second retired, after its manifest is durable.
	ops = nil
	addSegment(t, dir, m2, "c", 10)
	published := slices.Index(ops, "syncdir .")
	removed := slices.Index(ops, "remove "+norm(m2.Retired[0]))
	require.True(t, published >= 0 && removed >= published, "the retired file is removed before the manifest is durable:\n%s", strings.Join(ops, "\n"))
}
