package source

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/tally/tallytest"
	"github.com/neardup/neardup/io/parquetfile"
	"github.com/neardup/neardup/io/parquetfile/parquettest"
	"github.com/neardup/neardup/record"
)

const groupRows = 3

// manyGroups writes 61 rows in row groups of groupRows rows (21 groups, the last one
// short): null texts, null ids, invalid UTF-8 and empty texts among ordinary rows.
func manyGroups(t *testing.T, dir, name string) string {
	t.Helper()
	var rows []hfRow
	for i := range 61 {
		r := hfRow{URL: fmt.Sprintf("u%d", i), Text: str(fmt.Sprintf("document %d %s", i, strings.Repeat("w ", i%7))), ID: num(int64(1000 + i))}
		switch i % 11 {
		case 2:
			r.Text = nil
		case 5:
			r.ID = nil
		case 7:
			r.Text = str("bad \xff utf8")
		case 9:
			r.Text = str("")
		}
		rows = append(rows, r)
	}
	return writeParquet(t, dir, name, rows, groupRows)
}

func groupsOf(t *testing.T, file string) []parquetfile.Group {
	t.Helper()
	f, err := parquetfile.Open(context.Background(), file)
	require.NoError(t, err)
	defer f.Close()
	return f.Groups()
}

// chunkSizes are split sizes from one row group per range up to the whole file less one
// byte, by the footer's byte sizes.
func chunkSizes(groups []parquetfile.Group) []int64 {
	var total int64
	for _, g := range groups {
		total += g.Bytes
	}
	return []int64{1, groups[0].Bytes, groups[0].Bytes + 1, 2 * groups[0].Bytes, 5 * groups[0].Bytes, total / 3, total - 1}
}

// A Parquet file read in runs of row groups gives exactly the Docs, rejections and counts
// of a whole read, for every split size down to one row group per range.
func TestParquetSplitReadEqualsWholeRead(t *testing.T) {
	file := manyGroups(t, t.TempDir(), "many.parquet")
	groups := groupsOf(t, file)
	require.Len(t, groups, 21)
	wantDocs, wantRej, wantSt := readFile(t, file, Config{})
	require.Len(t, wantRej, 6, "the null texts")
	require.Equal(t, int64(55), wantSt.Docs)

	for _, chunk := range chunkSizes(groups) {
		ctx := context.Background()
		rs := Split(ctx, file, Config{}, chunk)
		require.Greater(t, len(rs), 1, "chunk %d", chunk)
		if chunk == 1 {
			require.Len(t, rs, len(groups), "one row group per range")
		}
		for i := range rs {
			rs[i] = CountRange(ctx, rs[i], Config{})
			require.Empty(t, rs[i].Damage)
		}
		docs, rej, st := readRanges(t, NumberRanges(rs), Config{})
		require.Equal(t, wantDocs, docs, "chunk %d", chunk)
		require.Equal(t, wantRej, rej, "chunk %d", chunk)
		require.Equal(t, wantSt, st, "chunk %d", chunk)
	}

	// The whole file in one chunk, or a file whose columns are unusable, is one whole range.
	assert.Equal(t, []Range{{File: file, End: -1}}, Split(context.Background(), file, Config{}, 1<<30))
	assert.Equal(t, []Range{{File: file, End: -1}}, Split(context.Background(), file, Config{TextField: "body"}, 1))
}

func TestCutGroups(t *testing.T) {
	gs := []parquetfile.Group{{Bytes: 10}, {Bytes: 10}, {Bytes: 30}, {Bytes: 5}, {Bytes: 5}, {Bytes: 1}}
	assert.Equal(t, [][2]int{{0, 2}, {2, 3}, {3, 6}}, cutGroups(gs, 20))
	assert.Equal(t, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}}, cutGroups(gs, 1))
	assert.Equal(t, [][2]int{{0, 6}}, cutGroups(gs, 61))
	assert.Empty(t, cutGroups(nil, 10))
}

// A damaged row group ends the file's records where a whole read ends them, however the
// file is split: the rows before it, one rejection at its first row, nothing after it,
// even from the ranges after the damaged one.
func TestParquetSplitReadDamagedRowGroup(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []int{0, 4, 20} {
		file := manyGroups(t, dir, fmt.Sprintf("bad%d.parquet", bad))
		groups := groupsOf(t, file)
		parquettest.CorruptRowGroup(t, file, bad)
		wantDocs, wantRej, wantSt := readFile(t, file, Config{})
		require.NotNil(t, wantSt.Damaged)
		require.Equal(t, int64(bad*groupRows+1), wantSt.Damaged.Line)
		require.Equal(t, wantSt.Damaged.Reason, wantRej[len(wantRej)-1].Reason)

		for _, chunk := range chunkSizes(groups) {
			docs, rej, rs := readSplit(t, file, chunk, Config{})
			require.Greater(t, len(rs), 1)
			require.Equal(t, wantDocs, docs, "group %d chunk %d", bad, chunk)
			require.Equal(t, wantRej, rej, "group %d chunk %d", bad, chunk)
		}
	}
}

// The damage the count found is the damage the read reports, even when the file reads
// whole by then (a transient storage error): the ranges after it were told to read
// nothing, so the range stops there and rejects the row.
func TestParquetSplitReadKeepsCountedDamage(t *testing.T) {
	dir := t.TempDir()
	file := manyGroups(t, dir, "a.parquet")
	healthy, err := os.ReadFile(file)
	require.NoError(t, err)
	parquettest.CorruptRowGroup(t, file, 7)
	wantDocs, wantRej, _ := readFile(t, file, Config{})

	ctx := context.Background()
	rs := Split(ctx, file, Config{}, 5*groupsOf(t, file)[0].Bytes)
	for i := range rs {
		rs[i] = CountRange(ctx, rs[i], Config{})
	}
	rs = NumberRanges(rs)
	require.NoError(t, os.WriteFile(file, healthy, 0o644))
	docs, rej, st := readRanges(t, rs, Config{})
	assert.Equal(t, wantDocs, docs)
	assert.Equal(t, wantRej, rej)
	require.NotNil(t, st.Damaged)
	assert.Equal(t, int64(7*groupRows+1), st.Damaged.Line)
}

// Verification's re-read opens only the row groups that hold the rows it asks for: a
// damaged row group between them does not stop it.
func TestReadLinesParquetReadsOnlyTheirRowGroups(t *testing.T) {
	file := manyGroups(t, t.TempDir(), "a.parquet")
	all, _, _ := readFile(t, file, Config{})
	lines := []int64{1, 3, 4, 17, 40, 41, 61}
	var want []record.Doc
	for _, d := range all {
		for _, l := range lines {
			if d.Line == l {
				want = append(want, d)
			}
		}
	}
	require.Len(t, want, 6, "row 3 has a null text")
	parquettest.CorruptRowGroup(t, file, 8) // rows 25-27
	var got []record.Doc
	ReadLines(context.Background(), file, Config{}, lines, func(d record.Doc) { got = append(got, d) })
	assert.Equal(t, want, got)
}

// On the runner a one-file Parquet corpus becomes one range per row group, and the
// pipeline reads the same Docs and Rejected as a whole read.
func TestReadPipelineSplitsOneParquetFile(t *testing.T) {
	dir := t.TempDir()
	file := manyGroups(t, dir, "corpus.parquet")
	wantDocs, wantRej, _ := readFile(t, file, Config{})

	p, s := beam.NewPipelineWithRoot()
	docs, rej, counts := Read(s, []string{file}, Config{ChunkBytes: 1})
	passert.Equals(s, docs, anySlice(wantDocs)...)
	passert.Equals(s, rej, anySlice(wantRej)...)
	counters := tallytest.Run(t, p, s, counts)
	assert.Equal(t, map[string]int64{"documents_read": int64(len(wantDocs)), "records_rejected": int64(len(wantRej)),
		"invalid_utf8_replaced": 5, "input_ranges": 21}, counters)
}

// A damaged row group of a split Parquet file is one rejection and one damaged file on
// the runner under skip, and fails the run under fail.
func TestReadPipelineSplitParquetDamaged(t *testing.T) {
	dir := t.TempDir()
	file := manyGroups(t, dir, "corpus.parquet")
	parquettest.CorruptRowGroup(t, file, 10)
	wantDocs, wantRej, _ := readFile(t, file, Config{})

	p, s := beam.NewPipelineWithRoot()
	docs, rej, counts := Read(s, []string{file}, Config{ChunkBytes: 1})
	passert.Equals(s, docs, anySlice(wantDocs)...)
	passert.Equals(s, rej, anySlice(wantRej)...)
	counters := tallytest.Run(t, p, s, counts)
	assert.Equal(t, int64(1), counters["damaged_files"])
	assert.Equal(t, int64(30), counters["documents_read"]+counters["records_rejected"]-1, "rows 1-30, then the damage")

	p, s = beam.NewPipelineWithRoot()
	docs, _, _ = Read(s, []string{file}, Config{ChunkBytes: 1, FailOnDamage: true})
	passert.Count(s, docs, "docs", len(wantDocs))
	_, err := ptest.RunWithMetrics(p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "input "+file+" is damaged")
	assert.Contains(t, err.Error(), "last good row 30")
}
