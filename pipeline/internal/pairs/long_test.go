package pairs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/jaccard"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/stagetest"
	"github.com/neardup/neardup/record"
	"github.com/neardup/neardup/shingleset"
)

// longShingle is the shingling of the long-document tests: word bigrams, so a document
// of n distinct random words has about n shingles.
var longShingle = shingleset.Config{Kind: "word", N: 2, StripPunct: true, Hash: "xxhash"}

// longDocs writes documents of words (each about 3.5 elem.ChunkHashes shingles, so
// each set crosses the runner in chunks) to a JSONL file: "a"; "b", a with one word in
// fifty changed; "c", unrelated; "d", a with its last quarter replaced. It returns the
// file and the documents' locations.
func longDocs(t *testing.T) (string, []elem.IDLoc) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	words := func(n int) []string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("w%d", r.IntN(1<<30))
		}
		return w
	}
	n := elem.ChunkHashes*7/2 + 17
	a := words(n)
	b := slices.Clone(a)
	for i := 0; i < n; i += 50 {
		b[i] = "changed"
	}
	d := append(slices.Clone(a[:3*n/4]), words(n/4)...)
	docs := []struct {
		id    string
		words []string
	}{{"a", a}, {"b", b}, {"c", words(n)}, {"d", d}}
	file := filepath.Join(t.TempDir(), "long.jsonl")
	var lines []byte
	var locs []elem.IDLoc
	for i, doc := range docs {
		lines = fmt.Appendf(lines, "{\"id\":%q,\"text\":%q}\n", doc.id, strings.Join(doc.words, " "))
		locs = append(locs, elem.IDLoc{ID: doc.id, File: file, Line: int64(i + 1)})
	}
	require.NoError(t, os.WriteFile(file, lines, 0o644))
	return file, locs
}

// TestRereadBoundsWhatItSends: the halves of long documents leave rereadFn, when it
// does not spill, in batches of at most elem.ShuffleBytes and a chunk, each set in
// chunks of at most elem.ChunkHashes hashes, which join into the document's whole set.
func TestRereadBoundsWhatItSends(t *testing.T) {
	file, _ := longDocs(t)
	f := &rereadFn{Shingle: longShingle, Source: source.Config{Format: "jsonl"}, Partitions: 1}
	require.NoError(t, f.Setup())
	defer f.Teardown()
	// Every document is asked for by many pairs, as a family of near-copies would be.
	var reqs []ReadRequest
	for line, id := range []string{"a", "b", "c", "d"} {
		for i := range 40 {
			reqs = append(reqs, ReadRequest{Line: int64(line + 1), U: id, V: fmt.Sprintf("v%02d", i), Node: id})
		}
	}
	chunks := map[string][][]uint64{}
	batches := 0
	err := f.ProcessElement(context.Background(), file, readBatch{Items: reqs}, func(_ int, b elem.HalfBatch) {
		batches++
		size := len(elem.Halves.Encode(b))
		assert.LessOrEqual(t, size, elem.ShuffleBytes+8*elem.ChunkHashes+64, "a batch of %d halves", len(b.Items))
		for _, h := range b.Items {
			assert.LessOrEqual(t, len(h.Hashes), elem.ChunkHashes, "a chunk of %s", h.Node)
			k := h.U + "/" + h.V
			chunks[k] = append(chunks[k], h.Hashes)
		}
	})
	require.NoError(t, err)
	require.Greater(t, batches, 40, "the halves left in many batches")

	sh, err := longShingle.Full().Shingler()
	require.NoError(t, err)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	for line, text := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		id := string("abcd"[line])
		want, _ := elem.DocHashes(sh, record.Doc{ID: id, Text: jsonText(t, text)})
		require.Greater(t, len(want), 3*elem.ChunkHashes, "document %s crosses in chunks", id)
		for i := range 40 {
			k := fmt.Sprintf("%s/v%02d", id, i)
			got, ok := elem.JoinChunks(chunks[k])
			require.True(t, ok, k)
			require.True(t, slices.Equal(want, got), "%s: the chunks joined are the document's set", k)
		}
	}
}

// jsonText returns the text field of a JSONL line of longDocs.
func jsonText(t *testing.T, line string) string {
	t.Helper()
	_, rest, ok := strings.Cut(line, `"text":"`)
	require.True(t, ok)
	return strings.TrimSuffix(rest, `"}`)
}

// TestVerifyLongDocuments decides pairs and a large bucket of long documents through the
// runner, whose sets come in chunks, and through spill files, whole: both give the
// verdicts, similarities and lengths of the documents' whole sets.
func TestVerifyLongDocuments(t *testing.T) {
	file, locs := longDocs(t)
	sh, err := longShingle.Full().Shingler()
	require.NoError(t, err)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	sets, lengths := map[string][]uint64{}, map[string]int64{}
	for line, text := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		id, text := string("abcd"[line]), jsonText(t, text)
		sets[id], _ = elem.DocHashes(sh, record.Doc{ID: id, Text: text})
		lengths[id] = elem.RuneCount(text)
	}
	const threshold = 0.5
	// The pairs, and a large bucket of a and b.
	pairs := []elem.Edge{{U: "a", V: "c"}, {U: "b", V: "d"}, {U: "c", V: "d"}}
	var want []string
	for _, e := range append(pairs, elem.Edge{U: "a", V: "b"}) {
		if sim := jaccard.Similarity(sets[e.U], sets[e.V]); sim >= threshold {
			want = append(want, fmt.Sprintf("%s %s %.2f %d %d", e.U, e.V, sim, lengths[e.U], lengths[e.V]))
		}
	}
	require.Len(t, want, 2, "a-b and b-d reach the threshold")
	for _, spilled := range []bool{false, true} {
		t.Run(fmt.Sprint("spilled=", spilled), func(t *testing.T) {
			o := Options{
				Shingle: longShingle, Source: source.Config{Format: "jsonl"},
				Partitions: verifyPartitions, Scheme: "affine32", Seed: 1, NumPerm: 128,
				Mode: Exact, Threshold: threshold, Floor: 0.3, Comparisons: 64, BudgetFloor: 16,
			}
			if spilled {
				o.SpillDir = t.TempDir()
			}
			p, s := beam.NewPipelineWithRoot()
			edges := beam.ParDo(s, edgeByU, beam.CreateList(s, pairs))
			bucket := beam.ParDo(s, memberByID, beam.CreateList(s, []elem.Half{elem.BucketMember("a", "a"), elem.BucketMember("a", "b")}))
			verified, _, _ := Verify(s, stagetest.Locs(s, verifyPartitions, locs), edges, bucket, o)
			passert.Equals(s, stagetest.Edges(s, verified), stagetest.Any(want)...)
			require.NoError(t, ptest.Run(p))
		})
	}
}
