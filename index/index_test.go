package index

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testParams = Params{NumPerm: 128, Scheme: "affine32", Hash: "xxhash", Seed: 1, Bands: 9, Rows: 13, Threshold: 0.8,
	Shingle: "word", NGram: 5, Normalization: "nfkc,lower,whitespace", MaxShingles: 100000}

func testRows(n int, prefix string) []Row {
	rows := make([]Row, n)
	for i := range rows {
		h := make([]uint64, 1+i%7)
		for j := range h {
			h[j] = uint64(i)<<20 + uint64(j)*977
		}
		rows[i] = Row{ID: fmt.Sprintf("%s%05d", prefix, i), Shingles: h}
	}
	return rows
}

// build writes rows as a new index in dir, one shard per ShardOf, and commits it.
func build(t *testing.T, dir string, prev *Manifest, rows []Row) *Manifest {
	t.Helper()
	ctx := context.Background()
	byShard := map[int][]Row{}
	for _, r := range rows {
		k := ShardOf(r.ID, prev.Shards)
		byShard[k] = append(byShard[k], r)
	}
	gen := prev.GenerationDir()
	var entries []FileEntry
	for k, rs := range byShard {
		if f, ok := prev.FileOfShard(k); ok {
			require.NoError(t, ReadShard(ctx, filepath.Join(dir, f.Path), func(_ int64, r Row) error { rs = append(rs, r); return nil }))
		}
		require.NoError(t, SortRows(rs))
		e, err := WriteShard(ctx, dir, gen+"/"+ShardName(k), k, rs)
		require.NoError(t, err)
		entries = append(entries, e)
	}
	next := prev.Next(entries)
	require.NoError(t, Commit(ctx, dir, prev, next))
	return next
}

func readAll(t *testing.T, dir string) []Row {
	t.Helper()
	m, err := Open(context.Background(), dir, testParams)
	require.NoError(t, err)
	var out []Row
	for _, p := range m.ShardPaths(dir) {
		var last int64
		require.NoError(t, ReadShard(context.Background(), p, func(num int64, r Row) error {
			require.Equal(t, last+1, num, "%s: row %d after %d", p, num, last)
			last = num
			out = append(out, r)
			return nil
		}))
	}
	SortRows(out)
	return out
}

func TestRoundTripAndSelectedRows(t *testing.T) {
	dir := t.TempDir()
	rows := testRows(5000, "d")
	m := build(t, dir, New(testParams, 4), slices.Clone(rows))
	require.True(t, m.Documents == 5000 && m.Generation == 1 && len(m.Files) == 4, "manifest: %+v", m)
	got := readAll(t, dir)
	require.True(t, slices.EqualFunc(got, rows, func(a, b Row) bool { return a.ID == b.ID && slices.Equal(a.Shingles, b.Shingles) }),
		"rows differ after a round trip")
	// Selected rows across row groups come back with their numbers, in order.
	path := m.ShardPaths(dir)[0]
	var all []Row
	ReadShard(context.Background(), path, func(_ int64, r Row) error { all = append(all, r); return nil })
	want := []int64{1, 2, RowGroupRows, RowGroupRows + 1, int64(len(all))}
	var nums []int64
	require.NoError(t, ReadSelected(context.Background(), path, want, func(num int64, r Row) error {
		nums = append(nums, num)
		assert.Equal(t, all[num-1].ID, r.ID, "row %d", num)
		return nil
	}))
	require.Equal(t, want, nums, "selected rows")
	err := ReadSelected(context.Background(), path, []int64{int64(len(all)) + 1}, func(int64, Row) error { return nil })
	require.ErrorContains(t, err, "does not exist", "row past the end")
}

func TestUpdatesInTwoStepsEqualOneInContent(t *testing.T) {
	a, b, c := testRows(300, "a"), testRows(200, "b"), testRows(100, "c")
	two, one := t.TempDir(), t.TempDir()
	m := build(t, two, New(testParams, 8), slices.Clone(a))
	m = build(t, two, m, slices.Clone(b))
	m2 := build(t, two, m, slices.Clone(c))
	n := build(t, one, New(testParams, 8), slices.Clone(a))
	n2 := build(t, one, n, append(slices.Clone(b), c...))
	require.True(t, m2.Generation == 3 && n2.Generation == 2, "generations %d and %d", m2.Generation, n2.Generation)
	sums := func(m *Manifest) []string {
		var s []string
		for _, f := range m.Files {
			s = append(s, fmt.Sprintf("%d %d %s", f.Shard, f.Bytes, f.SHA256))
		}
		return s
	}
	require.Equal(t, sums(m2), sums(n2), "shard contents differ")
	// Generation 1's files are gone once generation 3 is committed; generation 2's stay
	// for readers that opened it.
	left, _ := filepath.Glob(filepath.Join(two, "gen-000001-*", "*"))
	for _, p := range left {
		rel, _ := filepath.Rel(two, p)
		assert.True(t, slices.ContainsFunc(m2.Files, func(f FileEntry) bool { return f.Path == rel }), "generation 1 file %s not collected", rel)
	}
	require.Len(t, readAll(t, two), 600, "documents")
}

func TestDuplicateIDRefused(t *testing.T) {
	rows := append(testRows(3, "x"), Row{ID: "x00001"})
	err := SortRows(rows)
	require.EqualError(t, err, `id "x00001" occurs twice (index ids must be unique)`)
}

func TestMismatchedParams(t *testing.T) {
	dir := t.TempDir()
	build(t, dir, New(testParams, 2), testRows(10, "d"))
	run := testParams
	run.NumPerm, run.Threshold, run.Normalization = 64, 0.7, "nfkc,lower,whitespace,strip-punct"
	_, err := Open(context.Background(), dir, run)
	want := "index " + dir + " was built with other method flags; rerun with the index's values or rebuild it:\n" +
		"  num_perm: index 128, this run 64\n" +
		"  threshold: index 0.8, this run 0.7\n" +
		"  normalization: index nfkc,lower,whitespace, this run nfkc,lower,whitespace,strip-punct"
	require.EqualError(t, err, want)
}

func TestTruncatedShardRefused(t *testing.T) {
	dir := t.TempDir()
	m := build(t, dir, New(testParams, 1), testRows(50, "d"))
	path := filepath.Join(dir, m.Files[0].Path)
	st, _ := os.Stat(path)
	require.NoError(t, os.Truncate(path, st.Size()-100))
	_, err := Open(context.Background(), dir, testParams)
	want := fmt.Sprintf("index %s: shard file %s is damaged: %d bytes, the manifest says %d (truncated or partially written); rebuild the index or restore the file",
		dir, m.Files[0].Path, st.Size()-100, st.Size())
	require.EqualError(t, err, want)
	// The same size with other bytes fails the checksum.
	b, _ := os.ReadFile(path)
	os.WriteFile(path, append(b, bytes.Repeat([]byte{0}, 100)...), 0o644)
	_, err = Open(context.Background(), dir, testParams)
	require.ErrorContains(t, err, "is damaged: its SHA-256 is")
}

func TestMissingManifestRefused(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(context.Background(), dir, testParams)
	want := "index " + dir + ": no manifest.json (not a neardup index, or its first generation was never completed)"
	require.EqualError(t, err, want)
	os.WriteFile(filepath.Join(dir, ManifestName), []byte(`{"format": "neardup-index", "format_ver`), 0o644)
	_, err = Open(context.Background(), dir, testParams)
	require.ErrorContains(t, err, "manifest.json is damaged")
}

func TestConcurrentUpdateLoses(t *testing.T) {
	dir := t.TempDir()
	m := build(t, dir, New(testParams, 2), testRows(10, "d"))
	build(t, dir, m, testRows(5, "e"))
	err := Commit(context.Background(), dir, m, m.Next(nil))
	want := "index " + dir + ": changed during the run (generation 2, this run started from 1); nothing was committed, rerun"
	require.EqualError(t, err, want)
	err = Commit(context.Background(), dir, New(testParams, 2), m)
	require.ErrorContains(t, err, "already exists")
}

func TestInfo(t *testing.T) {
	dir := t.TempDir()
	m := build(t, dir, New(testParams, 2), testRows(10, "d"))
	var buf bytes.Buffer
	m.WriteInfo(&buf, dir, m.Verify(context.Background(), dir))
	out := buf.String()
	for _, want := range []string{"documents:     10\n", "generation 1", "num_perm 128", "checksums:     ok (2 files)"} {
		assert.Contains(t, out, want, "info lacks %q", want)
	}
}
