package pipeline

import (
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Unigram sets: big = {0..999}; excerpt = {100..699} and 60 words of its own, so its
// containment in big is 600/660 but its Jaccard only 600/1060; copy is excerpt again;
// quote = {0..199} and 300 words of its own, contained in big at 0.4 only; other
// shares nothing.
func containmentCorpus(t *testing.T) string {
	return writeLines(t, filepath.Join(t.TempDir(), "partial.jsonl"),
		jsonDoc("big", words(0, 1000)),
		jsonDoc("excerpt", words(100, 600)+" "+words(50_000, 60)),
		jsonDoc("copy", words(100, 600)+" "+words(50_000, 60)),
		jsonDoc("quote", words(0, 200)+" "+words(60_000, 300)),
		jsonDoc("other", words(70_000, 500)))
}

func TestContainmentRemovesPartialCopiesIntoTheirContainer(t *testing.T) {
	in := containmentCorpus(t)
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.Measure = []string{in}, t.TempDir(), MeasureContainment
	cfg.Shingle.N = 1
	out, st := dedup(t, cfg)

	removed := parseRemoved(t, out["removed.jsonl"])
	require.Len(t, removed, 2, out["removed.jsonl"])
	for _, id := range []string{"excerpt", "copy"} {
		assert.Equal(t, "big", removed[id].Cluster, id)
		assert.Equal(t, 600.0/660, removed[id].Similarity, "%s: the exact containment", id)
	}
	assert.Equal(t, `{"cluster":"big","size":3,"kept":"big","members":["big","copy","excerpt"]}`, strings.TrimSpace(out[clustersFile]))
	assert.Equal(t, int64(3), st.Counts["kept"])
	assert.Equal(t, string(MeasureContainment), st.Parameters.Measure)
	assert.Contains(t, out["report.html"], "exact containment of the two")
	assert.Contains(t, out["report.html"], `class="sim">0.9091</b>`)
	assert.NotEmpty(t, st.Parameters.Containment)

	// Every bucket resolved as a large one: the same decisions.
	cfg.Output, cfg.BucketAllPairs = t.TempDir(), 1
	large, st := dedup(t, cfg)
	assert.Equal(t, out[clustersFile], large[clustersFile])
	assert.Equal(t, stripPlace(t, out["removed.jsonl"]), stripPlace(t, large["removed.jsonl"]))
	assert.Positive(t, st.Counts["large_buckets"])
	assert.Zero(t, st.Counts["unresolved_bucket_pairs"])
	cfg.BucketAllPairs = DefaultConfig().BucketAllPairs

	// Jaccard finds only the exact copy.
	cfg.Measure, cfg.Output = MeasureJaccard, t.TempDir()
	out, _ = dedup(t, cfg)
	removed = parseRemoved(t, out["removed.jsonl"])
	require.Len(t, removed, 1)
	assert.Equal(t, "copy", removed["excerpt"].Cluster)
}

func TestContainmentRejectsFlagsItDoesNotApply(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Verify = "estimate" }, "--verify estimate"},
		{func(c *Config) { c.Keep = "longest" }, "--keep longest"},
		{func(c *Config) { c.Bands, c.Rows = 4, 4 }, "--bands/--rows"},
		{func(c *Config) { c.Against = []string{"idx"} }, "--against"},
		{func(c *Config) { c.Measure = "cosine" }, "--measure: must be"},
	} {
		cfg := DefaultConfig()
		cfg.Inputs, cfg.Output, cfg.Measure = []string{"x.jsonl"}, "out", MeasureContainment
		tc.edit(&cfg)
		assert.ErrorContains(t, cfg.Validate(), tc.want)
	}
}

// Forty documents open with the same 150-word header (a licence) and go on with 100
// words of their own, so they share buckets while none contains another (0.6); three
// excerpts copy 90% of one of them. With a budget of one comparison per set, every
// large bucket is still decided whole (containment.Join): no pair is left unresolved,
// each excerpt is removed into its source, and nothing else is.
func TestContainmentDecidesBoilerplateBucketsWithinNoBudget(t *testing.T) {
	header := words(0, 150)
	var docs []string
	for i := range 40 {
		docs = append(docs, jsonDoc(fmt.Sprintf("file%02d", i), header+" "+words(10_000+1000*i, 100)))
	}
	for i := range 3 {
		docs = append(docs, jsonDoc(fmt.Sprintf("excerpt%d", i), words(0, 135)+" "+words(10_000+1000*7*i, 90)))
	}
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.Measure = []string{writeLines(t, filepath.Join(t.TempDir(), "boiler.jsonl"), docs...)}, t.TempDir(), MeasureContainment
	cfg.Shingle.N = 1
	cfg.BucketAllPairs, cfg.BucketComparisons, cfg.bucketBudgetFloor = 1, 1, 1
	out, st := dedup(t, cfg)
	assert.Zero(t, st.Counts["unresolved_bucket_pairs"])
	assert.Positive(t, st.Counts["large_buckets"])
	// Every verdict is counted, repeats of a pair decided in several buckets included,
	// so the counts do not depend on which partitions the runner put in one bundle.
	assert.Equal(t, st.Counts["candidate_pairs"], st.Counts["verified_pairs"]+st.Counts["false_candidates"])
	removed := parseRemoved(t, out["removed.jsonl"])
	require.Len(t, removed, 3, out["removed.jsonl"])
	for i := range 3 {
		assert.Equal(t, fmt.Sprintf("file%02d", 7*i), removed[fmt.Sprintf("excerpt%d", i)].Cluster)
	}
}

// codeLines is n lines of code, each of five words of its own, from line from on.
func codeLines(from, n int) string {
	ls := make([]string, n)
	for i := range ls {
		k := from + i
		ls[i] = fmt.Sprintf("v%d := call%d(arg%d) + %d", k, k, k, k)
	}
	return strings.Join(ls, "\n")
}

// A 20-line file copied whole into the middle of a file 10, 30, 50 and 100 times its
// length is removed into it at containment 1.0 (threshold 0.8, word 5-grams: 96
// shingles inside 956 to 9,996): size ratios beyond the banding's class distances are
// met by sampling. Jaccard, at most 0.1 here, finds none of them.
func TestContainmentFindsSmallFilesInsideFilesUpTo100TimesLarger(t *testing.T) {
	var docs []string
	ratios := []int{10, 30, 50, 100}
	for i, ratio := range ratios {
		base := 1_000_000 * (i + 1)
		small := codeLines(base, 20)
		before := codeLines(base+100_000, 20*ratio/2-10)
		after := codeLines(base+200_000, 20*ratio-20*ratio/2-10)
		docs = append(docs, jsonDoc(fmt.Sprintf("small%d", ratio), small),
			jsonDoc(fmt.Sprintf("large%d", ratio), before+"\n"+small+"\n"+after))
	}
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.Measure = []string{writeLines(t, filepath.Join(t.TempDir(), "code.jsonl"), docs...)}, t.TempDir(), MeasureContainment
	out, st := dedup(t, cfg)
	removed := parseRemoved(t, out["removed.jsonl"])
	require.Len(t, removed, len(ratios), out["removed.jsonl"])
	for _, ratio := range ratios {
		r := removed[fmt.Sprintf("small%d", ratio)]
		assert.Equal(t, fmt.Sprintf("large%d", ratio), r.Cluster, "ratio %d", ratio)
		assert.Equal(t, 1.0, r.Similarity, "ratio %d", ratio)
	}
	assert.Zero(t, st.Counts["unresolved_bucket_pairs"])
	require.NotNil(t, st.Parameters.ContainmentSample)
	assert.GreaterOrEqual(t, st.Parameters.ContainmentSample.MaxSizeRatio, 100.0)

	cfg.Measure, cfg.Output = MeasureJaccard, t.TempDir()
	out, _ = dedup(t, cfg)
	assert.Empty(t, strings.TrimSpace(out["removed.jsonl"]))
}

// Under a memory limit whose share for the containment join holds a third of one
// boilerplate bucket's sets (the limit --memory sets, here a few MiB, and a budget of
// one comparison per set), the bucket is joined in blocks: the same removed.jsonl and
// clusters.jsonl as without a limit, and no pair left undecided.
func TestContainmentDecidesABucketLargerThanTheMemoryShare(t *testing.T) {
	const limit = 8 << 20
	// What checkPairsFn's deciders each join at once, in shingles (see its Setup).
	share := 2 * limit / 8 / int64(runtime.GOMAXPROCS(0)) / 32
	header := words(0, 150)
	var docs []string
	n := int(3*share/650) + 1
	for i := range n {
		docs = append(docs, jsonDoc(fmt.Sprintf("file%03d", i), header+" "+words(10_000+1000*i, 500)))
	}
	for i := range 5 {
		src := 10_000 + 1000*(n*i/5)
		docs = append(docs, jsonDoc(fmt.Sprintf("excerpt%d", i), words(0, 135)+" "+words(src, 450)))
	}
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Measure = []string{writeLines(t, filepath.Join(t.TempDir(), "boiler.jsonl"), docs...)}, MeasureContainment
	cfg.Shingle.N = 1
	cfg.BucketAllPairs, cfg.BucketComparisons, cfg.bucketBudgetFloor = 1, 1, 1
	cfg.Output = t.TempDir()
	want, _ := dedup(t, cfg)
	require.Len(t, parseRemoved(t, want["removed.jsonl"]), 5, want["removed.jsonl"])

	defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	cfg.Output = t.TempDir()
	got, st := dedup(t, cfg)
	assert.Zero(t, st.Counts["unresolved_bucket_pairs"])
	assert.Positive(t, st.Counts["large_buckets"])
	assert.Equal(t, want["removed.jsonl"], got["removed.jsonl"])
	assert.Equal(t, want[clustersFile], got[clustersFile])
}
