package source

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/neardup/neardup/internal/tally/tallytest"
	"github.com/neardup/neardup/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readSplit reads file in the ranges Read cuts it into at chunk bytes, counted and
// numbered as the pipeline does (CountRange, NumberRanges), in order.
func readSplit(t *testing.T, file string, chunk int64, cfg Config) ([]record.Doc, []record.Rejected, []Range) {
	t.Helper()
	ctx := context.Background()
	rs := Split(ctx, file, cfg, chunk)
	for i := range rs {
		rs[i] = CountRange(ctx, rs[i], cfg)
	}
	docs, rej, _ := readRanges(t, NumberRanges(rs), cfg)
	return docs, rej, rs
}

// readRanges reads numbered ranges in order and sums their Stats.
func readRanges(t *testing.T, rs []Range, cfg Config) ([]record.Doc, []record.Rejected, Stats) {
	t.Helper()
	var docs []record.Doc
	var rej []record.Rejected
	var sum Stats
	for _, r := range rs {
		st := ReadRange(context.Background(), r, cfg, func(d record.Doc) { docs = append(docs, d) },
			func(x record.Rejected) { rej = append(rej, x) })
		sum.Docs += st.Docs
		sum.Rejected += st.Rejected
		sum.InvalidUTF8 += st.InvalidUTF8
		if st.Damaged != nil {
			require.Nil(t, sum.Damaged, "one damage per file")
			sum.Damaged = st.Damaged
		}
	}
	return docs, rej, sum
}

// Every chunk size, down to one byte, reads exactly what a whole read does: the same
// records with the same line numbers and ids, each once, whatever lines the range
// boundaries cut (long lines, CRLF, empty lines, a BOM, no final newline).
func TestSplitReadEqualsWholeRead(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	var b strings.Builder
	b.WriteString(mixedJSONL + "\n")
	for i := range 60 {
		switch rng.IntN(6) {
		case 0:
			b.WriteString("\n")
		case 1:
			fmt.Fprintf(&b, "{\"text\": \"crlf %d\"}\r\n", i)
		case 2:
			fmt.Fprintf(&b, "{\"id\": \"long%d\", \"text\": \"%s\"}\n", i, strings.Repeat("w ", rng.IntN(300)))
		default:
			fmt.Fprintf(&b, "{\"id\": \"d%d\", \"text\": \"doc %d\"}\n", i, i)
		}
	}
	b.WriteString("{\"id\": \"end\", \"text\": \"no final newline\"}")
	file := write(t, dir, "one.jsonl", []byte(b.String()))
	wantDocs, wantRej, _ := readFile(t, file, Config{})
	require.Greater(t, len(wantDocs), 40)

	for _, chunk := range []int64{1, 2, 3, 7, 50, 64, 333, 1000, 4096, int64(b.Len()) - 1} {
		docs, rej, rs := readSplit(t, file, chunk, Config{})
		require.Greater(t, len(rs), 1, "chunk %d", chunk)
		require.Equal(t, wantDocs, docs, "chunk %d", chunk)
		require.Equal(t, wantRej, rej, "chunk %d", chunk)
	}
}

func TestSplitFileKeepsUnsplittableFilesWhole(t *testing.T) {
	assert.Len(t, SplitFile("a.jsonl", FormatAuto, 1000, 100), 10)
	assert.Len(t, SplitFile("a.txt", FormatAuto, 1000, 100), 10)
	for _, f := range []string{"a.jsonl.gz", "a.jsonl.zst", "a.parquet"} {
		assert.Equal(t, []Range{{File: f, End: -1}}, SplitFile(f, FormatAuto, 1000, 100), f)
	}
	assert.Equal(t, []Range{{File: "a.jsonl", End: -1}}, SplitFile("a.jsonl", FormatAuto, 100, 100), "one chunk")
	assert.Equal(t, []Range{{File: "a.jsonl", End: -1}}, SplitFile("a.jsonl", FormatAuto, 0, 100), "empty or unsized")
}

// On the runner a one-file corpus becomes several ranges (elements a runner can spread
// over workers), and the pipeline reads the same Docs and Rejected as a whole read.
func TestReadPipelineSplitsOneFile(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 200 {
		if i%37 == 5 {
			b.WriteString("not json\n")
			continue
		}
		fmt.Fprintf(&b, "{\"text\": \"document number %d\"}\n", i)
	}
	file := write(t, dir, "corpus.jsonl", []byte(b.String()))
	gzFile := write(t, dir, "small.jsonl.gz", gz(t, "{\"id\": \"z\", \"text\": \"zipped\"}\n"))
	wantDocs, wantRej, _ := readFile(t, file, Config{})
	zDocs, _, _ := readFile(t, gzFile, Config{})
	wantDocs = append(wantDocs, zDocs...)

	p, s := beam.NewPipelineWithRoot()
	docs, rej, counts := Read(s, []string{file, gzFile}, Config{ChunkBytes: 512})
	passert.Equals(s, docs, anySlice(wantDocs)...)
	passert.Equals(s, rej, anySlice(wantRej)...)
	counters := tallytest.Run(t, p, s, counts)
	info, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, (info.Size()+511)/512+1, counters["input_ranges"], "one range per 512 bytes, plus the .gz whole")
	assert.Equal(t, int64(1), counters["unsplittable_files"])
	assert.Equal(t, int64(len(wantDocs)), counters["documents_read"])
}

func anySlice[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// ReadLines gives exactly the requested documents of a whole read, skipping requested
// lines that are not documents.
func TestReadLinesEqualsFilteredWholeRead(t *testing.T) {
	file := write(t, t.TempDir(), "mixed.jsonl", []byte(mixedJSONL))
	all, _, _ := readFile(t, file, Config{})
	lines := []int64{1, 2, 4, 6, 11, 13}
	var want []record.Doc
	for _, d := range all {
		for _, l := range lines {
			if d.Line == l {
				want = append(want, d)
			}
		}
	}
	var got []record.Doc
	ReadLines(context.Background(), file, Config{}, lines, func(d record.Doc) { got = append(got, d) })
	require.Equal(t, want, got)
	require.Len(t, got, 4, "lines 4 (empty) and 6 (malformed) are not documents")
}

// A JSONL range that broke when it was counted ends the file there: its lines up to the
// break, one damaged-file rejection, and nothing from the ranges after it.
func TestSplitReadStopsAtCountedDamage(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "{\"id\": \"d%d\", \"text\": \"doc %d\"}\n", i, i)
	}
	file := write(t, t.TempDir(), "a.jsonl", []byte(b.String()))
	ctx := context.Background()
	rs := Split(ctx, file, Config{}, 200)
	require.Greater(t, len(rs), 3)
	for i := range rs {
		rs[i] = CountRange(ctx, rs[i], Config{})
	}
	rs[1].Good, rs[1].Damage = 2, "read "+file+" at byte 300: connection reset"
	rs = NumberRanges(rs)
	assert.True(t, rs[2].AfterDamage)
	docs, rej, st := readRanges(t, rs, Config{})
	broke := rs[1].First + 2
	require.Len(t, docs, int(broke-1))
	assert.Equal(t, broke-1, docs[len(docs)-1].Line)
	require.Len(t, rej, 1)
	assert.Equal(t, broke, rej[0].Line)
	assert.Equal(t, fmt.Sprintf("%sread %s at byte 300: connection reset; last good line %d; the records after it are unknown and in no output", ReadErrorPrefix, file, broke-1), rej[0].Reason)
	assert.Equal(t, broke, st.Damaged.Line)
}
