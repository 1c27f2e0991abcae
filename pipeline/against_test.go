package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/jaccard"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
)

// corpus builds documents of 60 random words. Changing one word of a 60-word document
// changes 5 of its 56 word 5-grams: Jaccard 51/61 ≈ 0.84, above the default 0.8; two
// changes far apart give 46/66 ≈ 0.70, below it.
type corpus struct {
	rng   *rand.Rand
	texts map[string]string
}

func newCorpus() *corpus {
	return &corpus{rng: rand.New(rand.NewPCG(13, 0)), texts: map[string]string{}}
}

func (c *corpus) fresh(id string) string {
	w := make([]string, 60)
	for i := range w {
		w[i] = fmt.Sprintf("w%d", c.rng.IntN(5000))
	}
	c.texts[id] = strings.Join(w, " ")
	return id
}

// near makes id a copy of src with the word at pos replaced.
func (c *corpus) near(id, src string, pos int) string {
	w := strings.Fields(c.texts[src])
	w[pos] = fmt.Sprintf("x%d", c.rng.IntN(1_000_000))
	c.texts[id] = strings.Join(w, " ")
	return id
}

func (c *corpus) copyOf(id, src string) string {
	c.texts[id] = c.texts[src]
	return id
}

func (c *corpus) write(t *testing.T, path string, ids ...string) string {
	lines := make([]string, len(ids))
	for i, id := range ids {
		lines[i] = jsonDoc(id, c.texts[id])
	}
	return writeLines(t, path, lines...)
}

// abc builds three batches: A (with duplicates of its own), B (near-duplicates and
// copies of A's documents, chains, duplicates of its own, new documents) and C
// (near-duplicates of A's and of B's new documents, new documents).
func abc(t *testing.T, dir string) (c *corpus, a, b, cc []string) {
	c = newCorpus()
	for i := range 30 {
		a = append(a, c.fresh(fmt.Sprintf("a%02d", i)))
	}
	a = append(a, c.near("a30", "a04", 20), c.near("a31", "a05", 20), c.copyOf("a32", "a06"))
	b = []string{
		c.near("b00", "a00", 30), c.near("b01", "a01", 30), c.near("b02", "a02", 10), c.copyOf("b03", "a03"),
		c.near("b04", "a07", 50),
		c.near("b05", "b00", 50), // a chain: b05 ~ b00 ~ a00, but b05 is not near a00
		c.near("b06", "a31", 45), // near a31, which A's own dedup removes: the transitivity case
		c.fresh("b07"), c.fresh("b08"), c.near("b09", "b08", 5), c.fresh("b10"), c.fresh("b11"),
	}
	cc = []string{
		c.near("c00", "a10", 25), c.near("c01", "b07", 25), c.copyOf("c02", "b10"), c.fresh("c03"), c.fresh("c04"),
		c.near("c05", "c04", 33), c.near("c06", "a11", 7),
	}
	return c, a, b, cc
}

func keptIDs(t *testing.T, kept string) []string {
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(kept), "\n") {
		if l == "" {
			continue
		}
		var r struct{ ID string }
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		ids = append(ids, r.ID)
	}
	sort.Strings(ids)
	return ids
}

func buildIndex(t *testing.T, cfg Config, dir string, inputs ...string) *index.Manifest {
	t.Helper()
	cfg.Inputs, cfg.Output = inputs, dir
	res, err := BuildIndex(context.Background(), cfg, 4, nil)
	require.NoError(t, err)
	return res.Manifest
}

type removedWithIndex struct {
	removedLine
	Index string `json:"index"`
}

func TestDedupAgainstIndex(t *testing.T) {
	dir := t.TempDir()
	c, a, b, _ := abc(t, dir)
	fileA, fileB := c.write(t, filepath.Join(dir, "a.jsonl"), a...), c.write(t, filepath.Join(dir, "b.jsonl"), b...)
	base := DefaultConfig()

	// A is deduplicated, its kept documents indexed, then B deduplicated against the index.
	cfgA := base
	cfgA.Inputs, cfgA.Output = []string{fileA}, filepath.Join(dir, "outA")
	outA, _ := dedup(t, cfgA)
	aKept := keptIDs(t, outA["kept.jsonl"])
	aRemoved := parseRemoved(t, outA["removed.jsonl"])
	require.Contains(t, aRemoved, "a31", "A's own dedup removes a31 (near a05)")
	idx := filepath.Join(dir, "idx")
	m := buildIndex(t, base, idx, filepath.Join(cfgA.Output, "kept.jsonl"))
	require.EqualValues(t, len(aKept), m.Documents)

	cfgB := base
	cfgB.Inputs, cfgB.Output, cfgB.Against = []string{fileB}, filepath.Join(dir, "outB"), []string{idx}
	outB, stB := dedup(t, cfgB)
	assert.EqualValues(t, len(b), stB.Counts["documents_read"])
	assert.EqualValues(t, len(aKept), stB.Counts["indexed_documents"])
	bKept := keptIDs(t, outB["kept.jsonl"])
	removed := map[string]removedWithIndex{}
	for _, l := range strings.Split(strings.TrimSpace(outB["removed.jsonl"]), "\n") {
		var r removedWithIndex
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		removed[r.ID] = r
	}

	// (1) Every B document with exact J ≥ t to an indexed document it shares a bucket
	// with is removed, with that document or its cluster's keeper as cluster, naming the
	// index.
	var err error
	base.Bands, base.Rows, err = cfgB.bandsRows()
	require.NoError(t, err)
	sh, err := base.Shingler()
	require.NoError(t, err)
	signer, err := minhash.NewSigner(base.Scheme, base.Seed, base.NumPerm)
	require.NoError(t, err)
	bands := func(id string) []uint64 {
		h, _ := sh.Hashes(c.texts[id])
		sig := make([]uint64, base.NumPerm)
		signer.SignInto(sig, h)
		keys := make([]uint64, base.Bands)
		for i := range keys {
			keys[i] = lsh.BandKey(sig, i, base.Rows)
		}
		return keys
	}
	clusterOf := map[string]map[string]any{}
	for _, l := range jsonLines(t, outB["clusters.jsonl"]) {
		for _, mem := range l["members"].([]any) {
			clusterOf[mem.(string)] = l
		}
		if ix, ok := l["indexed"]; ok {
			for _, mem := range ix.([]any) {
				clusterOf[mem.(string)] = l
			}
		}
	}
	pairs := 0
	for _, bid := range b {
		for _, aid := range aKept {
			hb, _ := sh.Hashes(c.texts[bid])
			ha, _ := sh.Hashes(c.texts[aid])
			kb, ka := bands(bid), bands(aid)
			shared := false
			for i := range kb {
				shared = shared || kb[i] == ka[i]
			}
			if !shared || jaccard.Similarity(hb, ha) < base.Threshold {
				continue
			}
			pairs++
			r, ok := removed[bid]
			if assert.True(t, ok, "%s (J=%v with indexed %s) is not removed", bid, jaccard.Similarity(hb, ha), aid) {
				keeper := clusterOf[aid]["kept"]
				assert.Contains(t, []any{aid, keeper}, r.Cluster, "%s removed with cluster %s", bid, r.Cluster)
				assert.Equal(t, idx, r.Index)
			}
		}
	}
	assert.GreaterOrEqual(t, pairs, 5, "the corpus plants B documents near indexed ones")
	assert.Equal(t, "a00", removed["b05"].Cluster, "b05 is removed through the chain b05 ~ b00 ~ a00")

	// (2) No indexed document is removed or written anywhere but clusters.jsonl.
	for id := range removed {
		assert.True(t, strings.HasPrefix(id, "b"), "removed %s", id)
	}
	for _, id := range bKept {
		assert.True(t, strings.HasPrefix(id, "b"), "kept %s", id)
	}
	assert.Equal(t, []any{"a00"}, clusterOf["a00"]["indexed"])

	// (3) A's kept ∪ B's kept against deduplicating A ∪ B with A's documents preferred.
	cfgU := base
	cfgU.Inputs, cfgU.Output, cfgU.Prefer = []string{fileB, fileA}, filepath.Join(dir, "outAB"), []string{fileA}
	outU, _ := dedup(t, cfgU)
	union := keptIDs(t, outU["kept.jsonl"])
	incremental := append(slices.Clone(aKept), bKept...)
	sort.Strings(incremental)
	unionRemoved := parseRemoved(t, outU["removed.jsonl"])
	unionClusters := map[string][]any{}
	for _, l := range jsonLines(t, outU["clusters.jsonl"]) {
		for _, mem := range l["members"].([]any) {
			unionClusters[mem.(string)] = l["members"].([]any)
		}
	}
	for _, id := range union {
		assert.Contains(t, incremental, id, "%s kept from A ∪ B but not incrementally", id)
	}
	// Where they differ, it is transitivity: a B document near only a document that A's
	// own dedup removed is kept incrementally (that document is not in the index), while
	// in A ∪ B the removed A document links it to A's keeper.
	var differ []string
	for _, id := range incremental {
		if slices.Contains(union, id) {
			continue
		}
		differ = append(differ, id)
		bridged := slices.ContainsFunc(unionClusters[id], func(m any) bool { _, ok := aRemoved[m.(string)]; return ok })
		assert.True(t, strings.HasPrefix(id, "b") && bridged,
			"%s kept incrementally but removed from A ∪ B (cluster %v) without an A document removed by A's dedup in its cluster", id, unionClusters[id])
	}
	t.Logf("incremental and A ∪ B differ on %v: kept incrementally, removed in A ∪ B through a document A's dedup removed", differ)
	assert.Contains(t, differ, "b06", "b06 is near only a31, which A's dedup removed")
	// Everything else removed from A ∪ B has the same keeper as incrementally.
	for id, r := range removed {
		assert.Equal(t, r.Cluster, unionRemoved[id].Cluster, "keeper of %s", id)
	}
}

func TestUpdateIndexTwiceEqualsOnce(t *testing.T) {
	dir := t.TempDir()
	c, a, b, cc := abc(t, dir)
	fileA := c.write(t, filepath.Join(dir, "a.jsonl"), a...)
	fileB, fileC := c.write(t, filepath.Join(dir, "b.jsonl"), b...), c.write(t, filepath.Join(dir, "c.jsonl"), cc...)
	base := DefaultConfig()
	two, one := filepath.Join(dir, "two"), filepath.Join(dir, "one")
	buildIndex(t, base, two, fileA)
	buildIndex(t, base, one, fileA)

	update := func(idx, name string, inputs ...string) {
		cfg := base
		cfg.Inputs, cfg.Output, cfg.Against, cfg.UpdateIndex = inputs, filepath.Join(dir, name), []string{idx}, true
		dedup(t, cfg)
	}
	base.Inputs, base.Output = []string{fileA}, dir
	require.NoError(t, base.Validate())
	update(two, "outB", fileB)
	update(two, "outC", fileC)
	update(one, "outBC", fileB, fileC)

	read := func(idx string) (*index.Manifest, []string) {
		m, err := index.Open(context.Background(), idx, base.IndexParams())
		require.NoError(t, err)
		var sums []string
		for _, f := range m.Files {
			sums = append(sums, fmt.Sprintf("shard %d: %d rows, %d bytes, sha256 %s", f.Shard, f.Rows, f.Bytes, f.SHA256))
		}
		return m, sums
	}
	m2, sums2 := read(two)
	m1, sums1 := read(one)
	assert.Equal(t, 3, m2.Generation)
	assert.Equal(t, 2, m1.Generation)
	assert.Equal(t, sums1, sums2, "B then C and B ∪ C give shard files with the same bytes")
	// All of A (33, indexed without dedup) + B's new documents (b07, b08, b10, b11) + C's
	// (c03, c04).
	assert.EqualValues(t, 33+4+2, m2.Documents)
}

func TestAgainstErrors(t *testing.T) {
	dir := t.TempDir()
	c := newCorpus()
	file := c.write(t, filepath.Join(dir, "a.jsonl"), c.fresh("a"), c.fresh("b"))
	base := DefaultConfig()
	idx := filepath.Join(dir, "idx")
	m := buildIndex(t, base, idx, file)
	run := func(mod func(*Config)) error {
		cfg := base
		cfg.Inputs, cfg.Output, cfg.Against = []string{file}, t.TempDir(), []string{idx}
		mod(&cfg)
		_, err := Run(context.Background(), cfg, nil)
		return err
	}

	err := run(func(c *Config) { c.NumPerm, c.Shingle.N = 64, 3 })
	var mm *index.MismatchError
	require.ErrorAs(t, err, &mm)
	assert.Equal(t, "index "+idx+" was built with other method flags; rerun with the index's values or rebuild it:\n"+
		"  num_perm: index 128, this run 64\n  b: index 15, this run 10\n  r: index 8, this run 6\n  ngram: index 5, this run 3", err.Error())

	shard := filepath.Join(idx, m.Files[0].Path)
	data, err := os.ReadFile(shard)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(shard, data[:len(data)/2], 0o644))
	err = run(func(*Config) {})
	assert.EqualError(t, err, fmt.Sprintf("index %s: shard file %s is damaged: %d bytes, the manifest says %d (truncated or partially written); rebuild the index or restore the file",
		idx, m.Files[0].Path, len(data)/2, len(data)))

	require.NoError(t, os.Remove(filepath.Join(idx, index.ManifestName)))
	err = run(func(*Config) {})
	assert.EqualError(t, err, "index "+idx+": no manifest.json (not a neardup index, or its first generation was never completed)")
}

func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		out = append(out, m)
	}
	return out
}
