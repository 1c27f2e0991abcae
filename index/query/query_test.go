package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/segment"
	"github.com/neardup/neardup/jaccard"
	"github.com/stretchr/testify/require"
)

var testParams = index.Params{NumPerm: 128, Scheme: "affine32", Hash: "xxhash", Seed: 1, Bands: 9, Rows: 13, Threshold: 0.8,
	Shingle: "word", NGram: 5, Normalization: "nfkc,lower,whitespace", MaxShingles: 100000}

// corpus makes n documents of 60-200 words; each later one is, with probability 1/2, a
// near copy (a few words changed) of an earlier one, so near-duplicates at and around
// the threshold abound.
func corpus(rng *rand.Rand, prefix string, n int, pool []Doc) []Doc {
	words := func(k int) []string {
		w := make([]string, k)
		for i := range w {
			w[i] = fmt.Sprintf("w%d", rng.IntN(5000))
		}
		return w
	}
	out := make([]Doc, n)
	for i := range out {
		var w []string
		if all := append(slices.Clone(pool), out[:i]...); len(all) > 0 && rng.IntN(2) == 0 {
			w = strings.Fields(all[rng.IntN(len(all))].Text)
			for range rng.IntN(5) {
				w[rng.IntN(len(w))] = fmt.Sprintf("x%d", rng.IntN(5000))
			}
		} else {
			w = words(60 + rng.IntN(140))
		}
		out[i] = Doc{Line: int64(i + 1), ID: fmt.Sprintf("%s%04d", prefix, i), Text: strings.Join(w, " ")}
	}
	return out
}

func build(t testing.TB, dir string, bits int, batches ...[]Doc) *index.Manifest {
	t.Helper()
	m := index.NewSegmented(testParams, bits)
	for _, b := range batches {
		var err error
		m, err = AddDocs(context.Background(), dir, m, b)
		require.NoError(t, err)
	}
	return m
}

// bruteForce is what Near must return: every indexed document sharing a band key with
// the query whose Jaccard over stored-width hashes reaches the threshold.
func bruteForce(e *Engine, indexed []Doc, q string, bits int) []index.Match {
	sig := e.NewSig()
	qh, qk := e.Features(q, sig, nil)
	qs := segment.Truncate(slices.Clone(qh), bits)
	var out []index.Match
	for _, d := range indexed {
		h, k := e.Features(d.Text, sig, nil)
		shared := false
		for b := range k {
			shared = shared || k[b] == qk[b]
		}
		if j := jaccard.Similarity(qs, segment.Truncate(slices.Clone(h), bits)); shared && j >= testParams.Threshold {
			out = append(out, index.Match{ID: d.ID, Jaccard: j})
		}
	}
	index.SortMatches(out)
	return out
}

func answers(t *testing.T, e *Engine, qs []Doc) [][]index.Match {
	t.Helper()
	out := make([][]index.Match, len(qs))
	for i, q := range qs {
		ms, err := e.Near(q.Text)
		require.NoError(t, err)
		out[i] = ms
	}
	return out
}

func TestNearIsBruteForceBeforeAndAfterCompaction(t *testing.T) {
	for _, bits := range []int{32, 64} {
		rng := rand.New(rand.NewPCG(uint64(bits), 1))
		// Batch sizes falling faster than MergeFactor keep three segments.
		a := corpus(rng, "a", 600, nil)
		b := corpus(rng, "b", 120, a)
		c := corpus(rng, "c", 20, append(a, b...))
		queries := corpus(rng, "q", 300, append(append(a, b...), c...))
		dir := t.TempDir()
		m := build(t, dir, bits, a, b, c)
		require.True(t, len(m.Segments) == 3 && m.Documents == 740, "%d segments, %d documents; want 3 and 740", len(m.Segments), m.Documents)
		e, err := Open(context.Background(), dir)
		require.NoError(t, err)
		before := answers(t, e, queries)
		found := 0
		for i, q := range queries {
			want := bruteForce(e, append(append(a, b...), c...), q.Text, bits)
			require.True(t, slices.Equal(before[i], want), "width %d, query %s: %v, want %v", bits, q.ID, before[i], want)
			found += len(want)
		}
		e.Close()
		require.GreaterOrEqual(t, found, 100, "only %d matches: the corpus does not exercise lookup", found)
		m, err = index.Compact(context.Background(), dir, m)
		require.NoError(t, err)
		require.True(t, len(m.Segments) == 1 && m.Generation == 4, "after compaction: %d segments, generation %d", len(m.Segments), m.Generation)
		e, err = Open(context.Background(), dir)
		require.NoError(t, err)
		require.True(t, slices.EqualFunc(answers(t, e, queries), before, slices.Equal), "width %d: answers differ after compaction", bits)
		e.Close()
	}
}

func TestSegmentsStayFewAsBatchesAccumulate(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 5))
	m := index.NewSegmented(testParams, 32)
	var all []Doc
	for i := range 40 {
		batch := corpus(rng, fmt.Sprintf("b%02d-", i), 10, nil)
		all = append(all, batch...)
		var err error
		m, err = AddDocs(context.Background(), dir, m, batch)
		require.NoError(t, err)
		require.LessOrEqual(t, len(m.Segments), 4, "after %d batches: %d segments", i+1, len(m.Segments))
	}
	s, err := index.OpenSegments(context.Background(), dir, testParams)
	require.NoError(t, err)
	defer s.Close()
	var ids []string
	s.EachDoc(func(id string, _ []uint64) error { ids = append(ids, id); return nil })
	want := make([]string, len(all))
	for i, d := range all {
		want[i] = d.ID
	}
	require.True(t, slices.Equal(ids, want), "documents after merges: %d, want %d in order", len(ids), len(want))
	// Old generations' files are collected.
	left, _ := filepath.Glob(filepath.Join(dir, "gen-*", "*"))
	require.LessOrEqual(t, len(left), 2*len(m.Segments)+2, "%d files left for %d segments", len(left), len(m.Segments))
}

// TestBatchFindsWhatNearFinds: looked up as batches (index.Batch, which joins sorted
// band keys against the segments' blocks), documents get exactly the matches, in the
// same order, that Near gives each alone, over an index of several segments.
func TestBatchFindsWhatNearFinds(t *testing.T) {
	for _, bits := range []int{32, 64} {
		rng := rand.New(rand.NewPCG(uint64(bits), 2))
		a := corpus(rng, "a", 600, nil)
		b := corpus(rng, "b", 120, a)
		c := corpus(rng, "c", 20, append(a, b...))
		// Queries repeat documents, so that band keys repeat within a batch.
		queries := corpus(rng, "q", 300, append(append(a, b...), c...))
		queries = append(queries, queries[:40]...)
		dir := t.TempDir()
		require.Len(t, build(t, dir, bits, a, b, c).Segments, 3, "segments")
		e, err := Open(context.Background(), dir)
		require.NoError(t, err)
		var sc index.Scratch
		sig := e.NewSig()
		want := make([][]index.Match, len(queries))
		hashes := make([][]uint64, len(queries))
		keys := make([][]uint64, len(queries))
		found := 0
		for i, q := range queries {
			hashes[i], keys[i] = e.Features(q.Text, sig, nil)
			require.NoError(t, e.Index.Near(hashes[i], keys[i], &sc, func(m index.Match) { want[i] = append(want[i], m) }))
			found += len(want[i])
		}
		require.GreaterOrEqual(t, found, 100, "only %d matches: the corpus does not exercise lookup", found)
		got := make([][]index.Match, len(queries))
		batch := e.Index.NewBatch()
		for _, part := range [][2]int{{0, 1}, {1, 200}, {200, len(queries)}} { // the batch is reused
			for i := part[0]; i < part[1]; i++ {
				require.NoError(t, batch.Add(e.Index.Prepare(hashes[i]), keys[i]))
			}
			last := -1
			err := batch.Run(func(q int, m index.Match) {
				require.GreaterOrEqual(t, q, last, "document %d after %d", q, last)
				last = q
				got[part[0]+q] = append(got[part[0]+q], m)
			})
			require.NoError(t, err)
		}
		for i := range queries {
			require.True(t, slices.Equal(got[i], want[i]), "width %d, query %s: %v, want %v", bits, queries[i].ID, got[i], want[i])
		}
		e.Close()
	}
}
