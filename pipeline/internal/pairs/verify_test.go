package pairs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/stagetest"
	"github.com/neardup/neardup/shingleset"
)

// verifyPartitions is the partition count of the hand-built collections and the stage.
const verifyPartitions = 3

func init() {
	register.Function2x0(edgeByU)
	register.Function2x0(memberByID)
}

// edgeByU and memberByID key one item as the earlier stages do: a candidate edge by
// U's partition, a large bucket's member by its id's.
func edgeByU(e elem.Edge, emit func(int, elem.EdgeBatch)) {
	emit(elem.PartOfString(e.U, verifyPartitions), elem.EdgeBatch{Items: []elem.Edge{e}})
}

func memberByID(h elem.Half, emit func(int, elem.HalfBatch)) {
	emit(elem.PartOfString(h.Node, verifyPartitions), elem.HalfBatch{Items: []elem.Half{h}})
}

// verifyDocs are the documents of the hand-built corpus, one per line in this order:
// b equals a once case and punctuation are folded, d adds one word to a (word bigrams:
// 8 shared of 9, 0.89), e is a's first half (4 of 8, 0.50), and c shares nothing.
var verifyDocs = []struct{ id, text string }{
	{"a", "the quick brown fox jumps over the lazy dog"},
	{"b", "The quick brown fox jumps over the lazy dog!"},
	{"c", "a completely different sentence about nothing at all"},
	{"d", "the quick brown fox jumps over the lazy dog today"},
	{"e", "the quick brown fox jumps"},
}

// TestVerify runs the verification stage alone: the candidates' lines are re-read from
// a real file, shingled and decided. Under --verify exact only pairs whose exact
// Jaccard reaches the threshold are verified, once however many bands found them, with
// both lengths in runes; under --verify none every candidate is, with the MinHash
// estimate as its similarity; a large bucket is
// resolved from its members, joining its near-copies; spilling changes nothing; under
// containment a pair that two large buckets join is passed on once.
func TestVerify(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "docs.jsonl")
	var locs []elem.IDLoc
	var lines []byte
	for i, d := range verifyDocs {
		lines = fmt.Appendf(lines, "{\"id\":%q,\"text\":%q}\n", d.id, d.text)
		locs = append(locs, elem.IDLoc{ID: d.id, File: file, Line: int64(i + 1)})
	}
	require.NoError(t, os.WriteFile(file, lines, 0o644))

	members := func(pivot string, ids ...string) []elem.Half {
		var hs []elem.Half
		for _, id := range ids {
			hs = append(hs, elem.BucketMember(pivot, id))
		}
		return hs
	}
	for _, tc := range []struct {
		name    string
		mode    string
		contain bool
		spill   bool
		edges   []elem.Edge
		members []elem.Half
		want    []string
	}{
		{name: "exact", mode: Exact,
			edges: []elem.Edge{{U: "a", V: "b"}, {U: "a", V: "b"}, {U: "a", V: "c"}, {U: "a", V: "d"}, {U: "a", V: "e"}},
			want:  []string{"a b 1.00 43 44", "a d 0.89 43 49"}},
		{name: "exact, spilled", mode: Exact, spill: true,
			edges: []elem.Edge{{U: "a", V: "b"}, {U: "a", V: "c"}, {U: "a", V: "d"}},
			want:  []string{"a b 1.00 43 44", "a d 0.89 43 49"}},
		{name: "none takes every candidate", mode: None,
			edges: []elem.Edge{{U: "a", V: "c"}, {U: "b", V: "e"}},
			want:  []string{"a c 0.00 43 52", "b e 0.50 44 25"}},
		{name: "large bucket", mode: Exact,
			members: members("a", "a", "b", "c", "d"),
			want:    []string{"a b 1.00 43 44", "a d 0.89 43 49"}},
		{name: "large bucket and a pair", mode: Exact,
			edges:   []elem.Edge{{U: "b", V: "d"}},
			members: members("a", "a", "c", "e"),
			want:    []string{"b d 0.89 44 49"}},
		{name: "containment: a pair in two large buckets is verified once", mode: Exact, contain: true,
			members: append(members("a", "a", "e"), members("b", "b", "a", "e")...),
			want:    []string{"a b 1.00 43 44", "a e 1.00 43 25", "b e 1.00 44 25"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{
				Shingle:    shingleset.Config{Kind: "word", N: 2, StripPunct: true, Hash: "xxhash"},
				Source:     source.Config{Format: "jsonl"},
				Partitions: verifyPartitions, Scheme: "affine32", Seed: 1, NumPerm: 128,
				Mode: tc.mode, Threshold: 0.8, Floor: 0.6, Comparisons: 64, BudgetFloor: 16,
				Containment: tc.contain,
			}
			if tc.spill {
				o.SpillDir = t.TempDir()
			}
			p, s := beam.NewPipelineWithRoot()
			edges := beam.ParDo(s, edgeByU, beam.CreateList(s, tc.edges))
			bucket := beam.ParDo(s, memberByID, beam.CreateList(s, tc.members))
			verified, _, _ := Verify(s, stagetest.Locs(s, verifyPartitions, locs), edges, bucket, o)
			passert.Equals(s, stagetest.Edges(s, verified), stagetest.Any(tc.want)...)
			require.NoError(t, ptest.Run(p))
		})
	}
}

// TestVerifyNeedsEveryLocation: a candidate without an input location fails the stage
// by name instead of being dropped.
func TestVerifyNeedsEveryLocation(t *testing.T) {
	p, s := beam.NewPipelineWithRoot()
	locs := stagetest.Locs(s, verifyPartitions, []elem.IDLoc{{ID: "a", File: "x.jsonl", Line: 1}})
	edges := beam.ParDo(s, edgeByU, beam.CreateList(s, []elem.Edge{{U: "a", V: "zz"}}))
	members := beam.ParDo(s, memberByID, beam.CreateList(s, []elem.Half(nil)))
	Verify(s, locs, edges, members, Options{Partitions: verifyPartitions, Mode: Exact, Scheme: "affine32", Seed: 1, NumPerm: 16,
		Shingle: shingleset.Config{Kind: "word", N: 2, Hash: "xxhash"}, Source: source.Config{Format: "jsonl"}})
	err := ptest.Run(p)
	require.ErrorContains(t, err, `candidate "zz" has no input location`)
}
