package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/gen"
	"github.com/neardup/neardup/gen/gentest"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/query"
)

// segmentsIndex builds a format 2 index of the JSONL file kept, in this process.
func segmentsIndex(t *testing.T, cfg Config, dir, kept string, bits int) *index.Manifest {
	t.Helper()
	cfg.Inputs, cfg.Output = []string{kept}, dir
	require.NoError(t, cfg.Validate()) // chooses b and r
	f, err := os.Open(kept)
	require.NoError(t, err)
	defer f.Close()
	var docs []query.Doc
	require.NoError(t, query.ReadDocs(f, kept, query.Fields{ID: cfg.IDField, Text: cfg.TextField}, func(d query.Doc) error {
		docs = append(docs, d)
		return nil
	}))
	m, err := query.AddDocs(context.Background(), dir, index.NewSegmented(cfg.IndexParams(), bits), docs)
	require.NoError(t, err)
	return m
}

// TestAgainstSegmentsEqualsAgainstShards: deduplicating a new batch against an index of
// segments, where the indexed documents are only looked up, writes the same kept,
// removed and clusters files, byte for byte, as against the same documents indexed in
// format 1, where they go through the whole pipeline, on generated corpora: an index of
// a dedup's kept output (the workflow of docs/index.md), and one of the raw corpus, which
// holds near-duplicates and exact duplicates of its own (neither format links two indexed
// documents, elem.BothIndexed). At 64 bits that holds by construction; at 32 it holds
// unless a 32-bit collision moves a similarity (see docs/index.md), which these corpora
// do not show.
func TestAgainstSegmentsEqualsAgainstShards(t *testing.T) {
	dir := t.TempDir()
	parts := genParts(t, dir, 3000, 1000)
	old, batch := parts[0], parts[1]

	base := DefaultConfig()
	cfgOld := base
	cfgOld.Inputs, cfgOld.Output = []string{old}, filepath.Join(dir, "out-old")
	_, stOld := dedup(t, cfgOld)
	require.Greater(t, stOld.Counts["removed"], int64(200), "the raw index must hold near-duplicates of its own")
	for _, source := range []struct{ name, path string }{
		{"kept", filepath.Join(cfgOld.Output, "kept.jsonl")},
		{"raw", old},
	} {
		t.Run(source.name, func(t *testing.T) {
			// Each index is built at the same path: removed.jsonl names it.
			idx := filepath.Join(dir, "idx-"+source.name)
			buildIndex(t, base, idx, source.path)
			run := func(name, idx string) map[string]string {
				cfg := base
				cfg.Inputs, cfg.Output, cfg.Against = []string{batch}, filepath.Join(dir, source.name+"-"+name), []string{idx}
				out, _ := dedup(t, cfg)
				return out
			}
			want := run("out-shards", idx)
			removed := strings.Count(want["removed.jsonl"], "\n")
			indexedClusters := strings.Count(want[clustersFile], `"indexed"`)
			require.Greater(t, indexedClusters, 50, "the batch must have many near-duplicates in the index")
			require.NotContains(t, want[clustersFile], `"size":0`, "a cluster of indexed documents only is no cluster of the run")
			if source.name == "raw" {
				require.Regexp(t, `"indexed":\["[^"]*",`, want[clustersFile], "some clusters must hold two indexed documents")
			}
			t.Logf("against format 1: %d removed, %d clusters with an indexed document", removed, indexedClusters)
			for _, bits := range []int{64, 32} {
				require.NoError(t, os.RemoveAll(idx))
				segmentsIndex(t, base, idx, source.path, bits)
				got := run(fmt.Sprintf("out-segments-%d", bits), idx)
				for _, f := range []string{"kept.jsonl", "removed.jsonl", clustersFile} {
					if got[f] != want[f] {
						t.Errorf("%d bits: %s differs from against format 1:\n%s", bits, f, firstDiff(want[f], got[f]))
					}
				}
			}
		})
	}
}

// genParts generates a corpus of sum(sizes) documents with many near-duplicates and
// writes its consecutive parts of the given sizes to files.
func genParts(t *testing.T, dir string, sizes ...int) []string {
	o := gen.Defaults()
	o.N, o.DupFraction, o.Seed, o.MinWords, o.MeanWords, o.MaxWords = 0, 0.3, 7, 20, 80, 200
	for _, n := range sizes {
		o.N += n
	}
	o.Output = filepath.Join(dir, "all.jsonl")
	b, err := os.ReadFile(gentest.Write(t, o))
	require.NoError(t, err)
	lines := strings.SplitAfter(strings.TrimSpace(string(b))+"\n", "\n")
	var out []string
	for i, n := range sizes {
		p := filepath.Join(dir, fmt.Sprintf("part%d.jsonl", i))
		require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines[:n], "")), 0o644))
		lines = lines[n:]
		out = append(out, p)
	}
	return out
}

// TestUpdateSegmentsEqualsUpdateShards: A's kept output indexed, B deduplicated against
// it with --update-index, then C against the result: C's outputs are byte-identical
// whether the index is of segments (B's kept added as a segment) or of shards.
func TestUpdateSegmentsEqualsUpdateShards(t *testing.T) {
	dir := t.TempDir()
	parts := genParts(t, dir, 2000, 600, 600)
	base := DefaultConfig()
	cfgA := base
	cfgA.Inputs, cfgA.Output = []string{parts[0]}, filepath.Join(dir, "out-a")
	dedup(t, cfgA)
	kept := filepath.Join(cfgA.Output, "kept.jsonl")
	idx := filepath.Join(dir, "idx")
	outs := map[string]map[string]string{}
	for _, format := range []string{"shards", "segments"} {
		require.NoError(t, os.RemoveAll(idx))
		if format == "shards" {
			buildIndex(t, base, idx, kept)
		} else {
			segmentsIndex(t, base, idx, kept, 64)
		}
		cfgB := base
		cfgB.Inputs, cfgB.Output, cfgB.Against, cfgB.UpdateIndex = []string{parts[1]}, filepath.Join(dir, "out-b-"+format), []string{idx}, true
		_, st := dedup(t, cfgB)
		m, err := index.ReadManifest(context.Background(), idx)
		require.NoError(t, err)
		require.Equal(t, format == "segments", m.Segmented())
		require.EqualValues(t, strings.Count(readFile(t, kept), "\n")+int(st.Counts["kept"]), m.Documents, "%s: A's kept and B's kept", format)
		cfgC := base
		cfgC.Inputs, cfgC.Output, cfgC.Against = []string{parts[2]}, filepath.Join(dir, "out-c-"+format), []string{idx}
		outs[format], _ = dedup(t, cfgC)
	}
	require.Greater(t, strings.Count(outs["shards"]["removed.jsonl"], "\n"), 20)
	for _, f := range []string{"kept.jsonl", "removed.jsonl", clustersFile} {
		if outs["shards"][f] != outs["segments"][f] {
			t.Errorf("%s differs:\n%s", f, firstDiff(outs["shards"][f], outs["segments"][f]))
		}
	}
}

func readFile(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func firstDiff(a, b string) string {
	sa, sb := bufio.NewScanner(strings.NewReader(a)), bufio.NewScanner(strings.NewReader(b))
	for n := 1; ; n++ {
		okA, okB := sa.Scan(), sb.Scan()
		if !okA && !okB {
			return "(equal)"
		}
		if !bytes.Equal(sa.Bytes(), sb.Bytes()) || okA != okB {
			return fmt.Sprintf("line %d:\n  want %s\n  got  %s", n, sa.Text(), sb.Text())
		}
	}
}
