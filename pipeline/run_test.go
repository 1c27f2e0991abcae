package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/neardup/neardup/gen/gentest"
	"github.com/neardup/neardup/pipeline/internal/cluster"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/repotest"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/shingle"
)

func writeLines(t *testing.T, path string, lines ...string) string {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return path
}

func jsonDoc(id, text string) string {
	b, _ := json.Marshal(map[string]string{"id": id, "text": text})
	return string(b)
}

// dedup runs the whole job on Prism and returns the output files by name.
func dedup(t *testing.T, cfg Config) (map[string]string, *Stats) {
	t.Helper()
	st, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	out := map[string]string{}
	entries, err := os.ReadDir(cfg.Output)
	require.NoError(t, err)
	for _, e := range entries {
		require.False(t, e.IsDir(), "leftover directory %s in the output", e.Name())
		b, err := os.ReadFile(filepath.Join(cfg.Output, e.Name()))
		require.NoError(t, err)
		out[e.Name()] = string(b)
	}
	// The accounting rule: every input line is kept, removed or rejected.
	c := st.Counts
	assert.Equal(t, c["documents_read"], c["kept"]+c["removed"])
	assert.Equal(t, c["kept"], int64(lineCount(out["kept.jsonl"]+out["kept.txt"])))
	assert.Equal(t, c["removed"], int64(lineCount(out["removed.jsonl"])))
	assert.Equal(t, c["records_rejected"], int64(lineCount(out["rejected.jsonl"])))
	return out, st
}

func lineCount(s string) int { return strings.Count(s, "\n") }

func seedConfig(t *testing.T) Config {
	cfg := DefaultConfig()
	cfg.Inputs = []string{filepath.Join(repotest.Root(t), "testdata", "seed.jsonl")}
	cfg.Output = t.TempDir()
	cfg.Shingle.N = 2
	cfg.Threshold = 0.8
	return cfg
}

type removedLine struct {
	ID         string          `json:"id"`
	Cluster    string          `json:"cluster"`
	Similarity float64         `json:"similarity"`
	File       string          `json:"file"`
	Line       int64           `json:"line"`
	Record     json.RawMessage `json:"record"`
}

func parseRemoved(t *testing.T, s string) map[string]removedLine {
	t.Helper()
	out := map[string]removedLine{}
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l == "" {
			continue
		}
		var r removedLine
		require.NoError(t, json.Unmarshal([]byte(l), &r), l)
		out[r.ID] = r
	}
	return out
}

func TestSeedCorpusKeepsD1D2D3RemovesD4(t *testing.T) {
	cfg := seedConfig(t)
	out, st := dedup(t, cfg)

	seed, err := os.ReadFile(cfg.Inputs[0])
	require.NoError(t, err)
	lines := strings.SplitAfter(string(seed), "\n")
	assert.Equal(t, lines[0]+lines[1]+lines[2], out["kept.jsonl"], "kept records must be byte-identical to the input")

	removed := parseRemoved(t, out["removed.jsonl"])
	require.Len(t, removed, 1)
	assert.Equal(t, "D1", removed["D4"].Cluster)
	assert.Equal(t, 1.0, removed["D4"].Similarity)
	assert.Contains(t, out["removed.jsonl"], `"similarity":1.0`)
	assert.JSONEq(t, strings.TrimSpace(lines[3]), string(removed["D4"].Record))

	assert.Equal(t, `{"cluster":"D1","size":2,"kept":"D1","members":["D1","D4"]}`+"\n", out[clustersFile])
	assert.Empty(t, out["rejected.jsonl"])
	assert.Equal(t, int64(4), st.Counts["documents_read"])
	assert.Equal(t, int64(1), st.Counts["exact_duplicates"], "D4 has D1's shingles exactly")
	assert.True(t, st.ConnectedComponents.Converged)
	assert.Equal(t, 2, st.Parameters.NGram)
	assert.Empty(t, st.Warnings, "two documents are not a giant cluster")
	assert.Equal(t, map[string]int64{"2": 1}, st.ClusterSizes)
}

func TestSameRunTwiceIsByteIdentical(t *testing.T) {
	cfg := seedConfig(t)
	first, _ := dedup(t, cfg)
	cfg.Output = t.TempDir()
	second, _ := dedup(t, cfg)
	assertSameOutputs(t, first, second)
}

// assertSameOutputs asserts that two runs wrote the same files with the same bytes, but
// for stats.json's timings and report.html's lines that show them and the directory.
func assertSameOutputs(t *testing.T, first, second map[string]string) {
	t.Helper()
	require.Equal(t, len(first), len(second))
	for name, a := range first {
		b := second[name]
		switch name {
		case statsFile:
			a, b = withoutTimings(t, a), withoutTimings(t, b)
		case report.HTMLFile:
			a, b = withoutRunLines(a), withoutRunLines(b)
		}
		assert.Equal(t, a, b, name)
	}
}

func withoutTimings(t *testing.T, stats string) string {
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(stats), &m))
	require.Contains(t, m, "timings")
	delete(m, "timings")
	delete(m, "resources") // peak RSS and spilled bytes vary as timings do
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}

// withoutRunLines drops the lines of report.html that name the output directory and show
// the timings, the two things that differ between identical runs.
func withoutRunLines(page string) string {
	var keep []string
	for _, l := range strings.Split(page, "\n") {
		if !strings.Contains(l, `id="outdir"`) && !strings.Contains(l, `id="timings"`) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// words returns n distinct words w<from>..w<from+n-1>.
func words(from, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("w%d", from+i)
	}
	return strings.Join(ws, " ")
}

func TestChainIsOneClusterKeepingTheSmallestID(t *testing.T) {
	// Unigram sets: A={0..99}, B={0..129}, C={30..129}. J(A,B)=J(B,C)=100/130≈0.77,
	// J(A,C)=70/130≈0.54: A and C are not similar, but the chain joins them.
	dir := t.TempDir()
	in := writeLines(t, filepath.Join(dir, "chain.jsonl"),
		jsonDoc("C", words(30, 100)), jsonDoc("A", words(0, 100)), jsonDoc("B", words(0, 130)))
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{in}, t.TempDir()
	cfg.Shingle.N, cfg.Threshold = 1, 0.75
	cfg.Bands, cfg.Rows = 64, 2 // detects 0.77 with certainty and 0.54 too, so A/C is a false candidate
	out, st := dedup(t, cfg)

	assert.Equal(t, jsonDoc("A", words(0, 100))+"\n", out["kept.jsonl"])
	removed := parseRemoved(t, out["removed.jsonl"])
	require.Len(t, removed, 2)
	assert.Equal(t, "A", removed["B"].Cluster)
	assert.Equal(t, "A", removed["C"].Cluster)
	assert.InDelta(t, 100.0/130, removed["C"].Similarity, 1e-12)
	assert.Equal(t, `{"cluster":"A","size":3,"kept":"A","members":["A","B","C"]}`+"\n", out[clustersFile])
	assert.Equal(t, int64(2), st.Counts["verified_pairs"])
	assert.GreaterOrEqual(t, st.Counts["false_candidates"], int64(1), "A/C must be rejected by exact verification")
}

func TestTenThousandIdenticalDocumentsKeepOne(t *testing.T) {
	dir := t.TempDir()
	lines := make([]string, 10000)
	for i := range lines {
		lines[i] = jsonDoc(fmt.Sprintf("d%05d", i), "the same boilerplate page, repeated across the whole crawl")
	}
	lines = append(lines, jsonDoc("other", "a different document about something else entirely"))
	in := writeLines(t, filepath.Join(dir, "boiler.jsonl"), lines...)
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{in}, t.TempDir()
	out, st := dedup(t, cfg)

	assert.Equal(t, lines[0]+"\n"+lines[10000]+"\n", out["kept.jsonl"])
	assert.Equal(t, int64(9999), st.Counts["removed"])
	assert.Equal(t, int64(9999), st.Counts["exact_duplicates"])
	assert.Equal(t, int64(1), st.Counts["clusters"])
	assert.Equal(t, int64(10000), st.LargestCluster)
	assert.Equal(t, map[string]int64{"8193-16384": 1}, st.ClusterSizes)
	require.Len(t, st.Warnings, 1)
	assert.Contains(t, st.Warnings[0], "giant cluster: 10000 of 10001 documents")
	assert.Equal(t, int64(0), st.Counts["candidate_pairs"], "exact duplicates never reach LSH verification")
}

func TestMixedScripts(t *testing.T) {
	dir := t.TempDir()
	ru := "Быстрая коричневая лиса перепрыгивает через ленивую собаку и бежит дальше в лес"
	ja := "東京都の天気は晴れ時々曇りで最高気温は二十五度の予報です"
	in := writeLines(t, filepath.Join(dir, "mixed.jsonl"),
		jsonDoc("ja1", ja), jsonDoc("ja2", ja+"。"), jsonDoc("ru1", ru), jsonDoc("ru2", strings.ToUpper(ru)),
		jsonDoc("zh", "今天的天气很好我们去公园散步吧"))
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{in}, t.TempDir()
	cfg.Shingle = shingle.Options{Kind: shingle.Char, N: 3}
	cfg.Threshold = 0.9
	out, _ := dedup(t, cfg)

	removed := parseRemoved(t, out["removed.jsonl"])
	require.Len(t, removed, 2, out["removed.jsonl"])
	assert.Equal(t, "ja1", removed["ja2"].Cluster)
	assert.Equal(t, "ru1", removed["ru2"].Cluster, "case folding makes the upper-case copy identical")
	assert.Equal(t, 1.0, removed["ru2"].Similarity)
	assert.Greater(t, removed["ja2"].Similarity, 0.9)
	assert.Less(t, removed["ja2"].Similarity, 1.0)
}

func TestBadRecordsAreRejectedAndCounted(t *testing.T) {
	dir := t.TempDir()
	in := writeLines(t, filepath.Join(dir, "bad.jsonl"),
		jsonDoc("a", "one two three four five six"),
		`{"id": "b", "text": `,
		`["not", "an", "object"]`,
		`{"id": "c"}`,
		`{"id": "d", "text": 42}`,
		jsonDoc("e", "one two three four five six"),
	)
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{in}, t.TempDir()
	out, st := dedup(t, cfg)

	assert.Equal(t, int64(2), st.Counts["documents_read"])
	assert.Equal(t, int64(4), st.Counts["records_rejected"])
	var lines []int64
	for _, l := range strings.Split(strings.TrimSpace(out["rejected.jsonl"]), "\n") {
		var r struct {
			File   string `json:"file"`
			Line   int64  `json:"line"`
			Reason string `json:"reason"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		assert.Equal(t, in, r.File)
		assert.NotEmpty(t, r.Reason)
		lines = append(lines, r.Line)
	}
	assert.True(t, sort.SliceIsSorted(lines, func(i, j int) bool { return lines[i] < lines[j] }))
	assert.Equal(t, []int64{2, 3, 4, 5}, lines)
	assert.Contains(t, out["rejected.jsonl"], `field \"text\"`)
}

func TestDuplicateIDsFailBeforeWritingAnything(t *testing.T) {
	dir := t.TempDir()
	in := writeLines(t, filepath.Join(dir, "dup.jsonl"), jsonDoc("x", "first text"), jsonDoc("y", "other"), jsonDoc("x", "second text"))
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{in}, t.TempDir()
	_, err := Run(context.Background(), cfg, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `duplicate id "x"`)
	assert.Contains(t, err.Error(), in+":1")
	assert.Contains(t, err.Error(), in+":3")
	entries, _ := os.ReadDir(cfg.Output)
	for _, e := range entries {
		assert.True(t, strings.HasPrefix(e.Name(), "."), "finished-looking output %s after a failed run", e.Name())
	}
}

func TestExistingOutputsNeedOverwrite(t *testing.T) {
	cfg := seedConfig(t)
	dedup(t, cfg)
	_, err := Run(context.Background(), cfg, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--overwrite")
	cfg.Overwrite = true
	dedup(t, cfg)
}

func TestKeepLongest(t *testing.T) {
	dir := t.TempDir()
	in := writeLines(t, filepath.Join(dir, "long.jsonl"),
		jsonDoc("a", "red blue green"), jsonDoc("b", "Red   Blue   Green"), jsonDoc("c", "black white"))
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{in}, t.TempDir()
	cfg.Shingle.N, cfg.Keep = 2, cluster.KeepLongest
	out, _ := dedup(t, cfg)
	removed := parseRemoved(t, out["removed.jsonl"])
	require.Len(t, removed, 1)
	assert.Equal(t, "b", removed["a"].Cluster, "the longer text is kept")
	assert.Equal(t, `{"cluster":"a","size":2,"kept":"b","members":["a","b"]}`+"\n", out[clustersFile])
}

func TestValidateRejectsBadFlags(t *testing.T) {
	for name, mutate := range map[string]func(*Config){
		"--threshold":   func(c *Config) { c.Threshold = 1.5 },
		"--num-perm":    func(c *Config) { c.NumPerm = 1 },
		"--verify":      func(c *Config) { c.Verify = "maybe" },
		"--keep":        func(c *Config) { c.Keep = "newest" },
		"--scheme":      func(c *Config) { c.Scheme = "affine16" },
		"--cc-rounds":   func(c *Config) { c.CCRounds = 0 },
		"--ngram":       func(c *Config) { c.Shingle.N = 0 },
		"--num-perm 16": func(c *Config) { c.LSH, c.NumPerm, c.Threshold = LSHDatasketch, 16, 0.9 }, // datasketch: b < 2
		"--lsh":         func(c *Config) { c.LSH = "fast" },
		"--compress":    func(c *Config) { c.Layout, c.Compress = LayoutSingle, CompressZstd },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := seedConfig(t)
			mutate(&cfg)
			err := cfg.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), strings.Fields(name)[0])
		})
	}
}

// TestDistributedCCMatchesLocal runs a generated corpus with both connected-components
// modes and the two partitionings: every output but stats.json must be byte-identical.
func TestDistributedCCMatchesLocal(t *testing.T) {
	corpus := genCorpus(t, 600, 11)
	run := func(cc CC, partitions int) map[string]string {
		cfg := DefaultConfig()
		cfg.Inputs, cfg.Output = []string{corpus}, t.TempDir()
		cfg.Threshold, cfg.CC, cfg.Partitions = 0.5, cc, partitions
		out, st := dedup(t, cfg)
		require.Greater(t, st.Counts["removed"], int64(50), "the corpus must have clusters to compare")
		require.True(t, st.ConnectedComponents.Converged)
		delete(out, statsFile)
		delete(out, report.HTMLFile) // shows stats.json
		return out
	}
	local := run(cluster.Local, 256)
	assert.Equal(t, local, run(cluster.Distributed, 256))
	assert.Equal(t, local, run(cluster.Local, 3), "the partitioning must not change the result")
}

// genCorpus writes a generated corpus of n documents, 30% of them planted near-duplicates,
// and returns its path.
func genCorpus(t *testing.T, n int, seed uint64) string { return gentest.Corpus(t, n, seed, 0.3) }

// TestJobErrorKeepsAMessage: the DoFn's message after Prism's last "] failed:" line is
// what the user reads; a job that failed with nothing after that line (or before any
// bundle ran) still says why, and never leaves the error blank.
func TestJobErrorKeepsAMessage(t *testing.T) {
	for _, tc := range []struct{ err, want string }{
		{"plan [a]\n[b] failed:\nduplicate id \"x\"\n", `duplicate id "x"`},
		{"plan [a]\n[b] failed:\n", "plan [a]\n[b] failed:"},
		{"go: go.mod file not found\n", "go: go.mod file not found"},
	} {
		assert.Equal(t, tc.want, jobError(fmt.Errorf("%s", tc.err)))
	}
}

// A run leaves nothing in the temporary directory: Beam's portable runner creates a
// "beamloopbackworker-*" file there for every LOOPBACK job and never removes it.
func TestRunLeavesNoTempFiles(t *testing.T) {
	cfg := seedConfig(t) // its output directory is made under the TMPDIR of before
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dedup(t, cfg)
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("the run left %s in TMPDIR", e.Name())
	}
	if got := os.Getenv("TMPDIR"); got != tmp {
		t.Errorf("TMPDIR is %q after the run, want %q restored", got, tmp)
	}
}

// With RunnerLogEnv set, the runner's log is kept at that path at debug level, with the
// bundle lines bench/stages.sh reads; the output directory holds only outputs.
func TestRunnerLogEnvKeepsADebugLog(t *testing.T) {
	cfg := seedConfig(t)
	log := filepath.Join(t.TempDir(), "runner.log")
	t.Setenv(runnerLogEnv, log)
	dedup(t, cfg) // fails on any directory left in the output
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	for _, want := range []string{`msg="preProcessGraph: all stages and transforms"`, `msg="Execute: starting bundle"`,
		`msg="Execute: committing data"`, "features.Sign/features.SignFn"} {
		assert.Contains(t, string(b), want)
	}
}
