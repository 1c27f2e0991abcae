package indexwrite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/prismtest"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/stagetest"
	"github.com/neardup/neardup/record"
	"github.com/neardup/neardup/shingleset"
)

// testShards is the shard count of the test indexes.
const testShards = 4

// testOptions make rows of word bigrams capped at 3.
var testOptions = Options{Shingle: shingleset.Config{Kind: "word", N: 2, Hash: "xxhash", MaxShingles: 3}, Source: source.Config{Format: "jsonl"}}

// testDocs are the documents of the tests: a has 4 bigrams, over the cap; e none.
var testDocs = []record.Doc{
	{ID: "a", Text: "one two three four five"},
	{ID: "b", Text: "one two three"},
	{ID: "c", Text: "six seven eight nine"},
	{ID: "d", Text: "ten eleven"},
	{ID: "e", Text: ""},
}

func init() { register.DoFn3x1[int, rowBatch, func(string), error](&rowTextsFn{}) }

// rowTextsFn writes each row, spilled or not, as "id hashes", marked when it is not
// keyed by its id's shard, where WriteShards writes it.
type rowTextsFn struct{ Shards int }

func (f *rowTextsFn) ProcessElement(k int, b rowBatch, emit func(string)) error {
	rows := slices.Clone(b.Items)
	err := elem.Unspill(b.Spilled, rowCodec.Decode, func(more rowBatch) { rows = append(rows, more.Items...) })
	for _, r := range rows {
		s := rowText(r)
		if want := index.ShardOf(r.ID, f.Shards); k != want {
			s += fmt.Sprintf(" in shard %d", k)
		}
		emit(s)
	}
	return err
}

func rowText(r index.Row) string { return fmt.Sprintf("%s %x", r.ID, r.Shingles) }

// wantRow is the row of d: its sorted distinct bigram hashes, the smallest 3 kept.
func wantRow(t *testing.T, d record.Doc) index.Row {
	sh, err := testOptions.Shingle.Full().Shingler()
	require.NoError(t, err)
	h, _ := sh.Hashes(d.Text)
	require.True(t, slices.IsSorted(h))
	return index.Row{ID: d.ID, Shingles: slices.Clip(h[:min(len(h), testOptions.Shingle.MaxShingles)])}
}

// TestRows runs Rows alone: every document becomes one row, keyed by its id's shard,
// of its shingle hashes capped at --max-shingles (the smallest kept), spilled or not.
func TestRows(t *testing.T) {
	var want []string
	for _, d := range testDocs {
		want = append(want, rowText(wantRow(t, d)))
	}
	for _, spill := range []bool{false, true} {
		t.Run(fmt.Sprintf("spill=%v", spill), func(t *testing.T) {
			o := testOptions
			if spill {
				o.SpillDir = t.TempDir()
			}
			p, s := beam.NewPipelineWithRoot()
			rows := Rows(s, beam.CreateList(s, testDocs), testShards, o)
			passert.Equals(s, beam.ParDo(s, &rowTextsFn{Shards: testShards}, rows), stagetest.Any(want)...)
			require.NoError(t, ptest.Run(p))
		})
	}
}

// TestWriteShards runs Rows and WriteShards on a new index and on one with current
// shard files: each shard that received rows is written under the generation
// directory, holding its new rows and its current file's, sorted by id, and is listed
// (by shard, with its rows, shingles, size and SHA-256) in the entries the driver
// commits; a shard that received none is neither written nor listed; an id already in
// its shard's current file fails the stage.
func TestWriteShards(t *testing.T) {
	ctx := context.Background()
	old := []index.Row{wantRow(t, record.Doc{ID: "x", Text: "old text here"}), wantRow(t, record.Doc{ID: "y", Text: "older text"})}
	received := map[int]bool{}
	for _, d := range testDocs {
		received[index.ShardOf(d.ID, testShards)] = true
	}
	require.True(t, received[index.ShardOf("x", testShards)], "x's shard receives rows")
	require.False(t, received[index.ShardOf("y", testShards)], "y's shard receives none")

	for _, tc := range []struct {
		name   string
		old    []index.Row
		docs   []record.Doc
		failed string
	}{
		{name: "new index", docs: testDocs},
		{name: "current shards", old: old, docs: testDocs},
		{name: "an id again", old: old, docs: append(slices.Clone(testDocs), record.Doc{ID: "x", Text: "x again"}),
			failed: `id "x" occurs twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, tmp := t.TempDir(), t.TempDir()
			prev := index.New(index.Params{}, testShards)
			for _, r := range tc.old {
				k := index.ShardOf(r.ID, testShards)
				e, err := index.WriteShard(ctx, dir, "gen-000001-0/"+index.ShardName(k), k, []index.Row{r})
				require.NoError(t, err)
				prev.Files = append(prev.Files, e)
			}
			w := NewTarget(dir, prev)
			p, s := beam.NewPipelineWithRoot()
			WriteShards(s, Rows(s, beam.CreateList(s, tc.docs), w.Shards, testOptions), w, tmp)
			if tc.failed != "" {
				require.ErrorContains(t, ptest.Run(p), tc.failed)
				return
			}
			require.NoError(t, ptest.Run(p))

			byShard := map[int][]index.Row{}
			for _, d := range tc.docs {
				byShard[index.ShardOf(d.ID, testShards)] = append(byShard[index.ShardOf(d.ID, testShards)], wantRow(t, d))
			}
			for _, r := range tc.old {
				if k := index.ShardOf(r.ID, testShards); received[k] {
					byShard[k] = append(byShard[k], r)
				}
			}
			entries, err := ReadEntries(ctx, tmp)
			require.NoError(t, err)
			var shards []int
			for _, e := range entries {
				shards = append(shards, e.Shard)
				want := byShard[e.Shard]
				slices.SortFunc(want, func(a, b index.Row) int { return strings.Compare(a.ID, b.ID) })
				require.Equal(t, w.GenDir+"/"+index.ShardName(e.Shard), e.Path)
				path := filepath.Join(dir, e.Path)
				var got []index.Row
				require.NoError(t, index.ReadShard(ctx, path, func(_ int64, r index.Row) error {
					got = append(got, r)
					return nil
				}))
				require.Equal(t, textsOf(want), textsOf(got), "shard %d", e.Shard)
				shingles := int64(0)
				for _, r := range want {
					shingles += int64(len(r.Shingles))
				}
				b, err := os.ReadFile(path)
				require.NoError(t, err)
				sum := sha256.Sum256(b)
				require.Equal(t, index.FileEntry{Shard: e.Shard, Path: e.Path, Rows: int64(len(want)), Shingles: shingles,
					Bytes: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}, e)
			}
			require.Equal(t, slices.Sorted(maps.Keys(byShard)), shards, "the shards listed, in order")
		})
	}
}

// TestWriteShardsSegment runs Rows and WriteShards on an index of segments: all rows
// go to one new segment, listed as shard 0, which the driver's commit makes readable.
func TestWriteShardsSegment(t *testing.T) {
	ctx := context.Background()
	dir, tmp := t.TempDir(), t.TempDir()
	params := index.Params{NumPerm: 8, Scheme: "affine32", Seed: 1, Bands: 4, Rows: 2}
	prev := index.NewSegmented(params, 64)
	w := NewTarget(dir, prev)
	require.Equal(t, 1, w.Shards)
	p, s := beam.NewPipelineWithRoot()
	WriteShards(s, Rows(s, beam.CreateList(s, testDocs), w.Shards, testOptions), w, tmp)
	require.NoError(t, ptest.Run(p))

	entries, err := ReadEntries(ctx, tmp)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	e := entries[0]
	require.Equal(t, 0, e.Shard)
	require.Equal(t, int64(len(testDocs)), e.Rows)
	_, err = index.CommitSegment(ctx, dir, prev, index.SegmentEntry{Path: e.Path, Documents: e.Rows, Shingles: e.Shingles, Bytes: e.Bytes, SHA256: e.SHA256})
	require.NoError(t, err)
	seg, err := index.OpenSegments(ctx, dir, params)
	require.NoError(t, err)
	defer seg.Close()
	var got, want []string
	require.NoError(t, seg.EachDoc(func(id string, set []uint64) error {
		got = append(got, rowText(index.Row{ID: id, Shingles: set}))
		return nil
	}))
	for _, d := range testDocs {
		want = append(want, rowText(wantRow(t, d)))
	}
	require.Equal(t, want, got)
}

// TestUpdate runs Update alone: the kept documents of the decisions, and only those,
// are re-read from their input files and added to the index; a kept line the file no
// longer has fails the stage, naming the file and line.
func TestUpdate(t *testing.T) {
	ctx := context.Background()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	var lines []byte
	for _, d := range testDocs {
		lines = fmt.Appendf(lines, "{\"id\":%q,\"text\":%q}\n", d.ID, d.Text)
	}
	require.NoError(t, os.WriteFile(in, lines, 0o644))
	decide := func(line int64, removed bool) record.Decision {
		return record.Decision{File: in, Line: line, ID: testDocs[line-1].ID, Removed: removed}
	}
	for _, tc := range []struct {
		name      string
		decisions []record.Decisions
		kept      []record.Doc
		failed    string
	}{
		{name: "kept ones", decisions: []record.Decisions{
			{Items: []record.Decision{decide(1, false), decide(2, true)}},
			{Items: []record.Decision{decide(4, false), decide(3, true), decide(5, false)}}},
			kept: []record.Doc{testDocs[0], testDocs[3], testDocs[4]}},
		{name: "a line gone", decisions: []record.Decisions{{Items: []record.Decision{decide(1, false), {File: in, Line: 9, ID: "z"}}}},
			failed: fmt.Sprintf("re-read %s: kept line 9 is no longer readable", in)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, tmp := t.TempDir(), t.TempDir()
			w := NewTarget(dir, index.New(index.Params{}, testShards))
			p, s := beam.NewPipelineWithRoot()
			Update(s, beam.CreateList(s, tc.decisions), w, testOptions, tmp)
			if tc.failed != "" {
				require.ErrorContains(t, ptest.Run(p), tc.failed)
				return
			}
			require.NoError(t, ptest.Run(p))
			entries, err := ReadEntries(ctx, tmp)
			require.NoError(t, err)
			var got, want []string
			for _, e := range entries {
				require.NoError(t, index.ReadShard(ctx, filepath.Join(dir, e.Path), func(_ int64, r index.Row) error {
					got = append(got, rowText(r))
					return nil
				}))
			}
			for _, d := range tc.kept {
				want = append(want, rowText(wantRow(t, d)))
			}
			require.ElementsMatch(t, want, got)
		})
	}
}

func textsOf(rows []index.Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, rowText(r))
	}
	return out
}

// TestMain runs the tests on Prism.
func TestMain(m *testing.M) { prismtest.Main(m) }
