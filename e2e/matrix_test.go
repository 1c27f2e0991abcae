package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/io/source"
)

// The engine matrix: every case runs embedded and on the engine, and every file the
// engine run writes must equal the embedded run's.

// matrixGenerated is the generated corpus's size: enough documents for many clusters,
// LSH buckets and partitions on every worker, split over matrixParts input files.
const (
	matrixGenerated = 20000
	matrixParts     = 4
	matrixSmall     = 2000 // the corpus of the Parquet, annotate, index and s3:// cases
)

// runEngineMatrix runs the matrix's cases on e: those named in only, or all of them.
func runEngineMatrix(t *testing.T, e *engine, only ...string) {
	run := func(name string, f func(t *testing.T)) {
		if len(only) == 0 || slices.Contains(only, name) {
			t.Run(name, f)
		}
	}
	seed := filepath.Join(repoRoot(t), "testdata", "seed.jsonl")

	run("seed", func(t *testing.T) {
		want := engineMatchesEmbedded(t, e, nil, "--input", seed, "--ngram", "2", "--threshold", "0.8", "--cc", "local")
		assertSeedResult(t, want)
	})

	run("generated", func(t *testing.T) {
		dir := fixture(t, "generated", func(dir string) { splitCorpus(t, genCorpus(t, matrixGenerated, 7), dir, matrixParts) })
		// Distributed rounds on both, which --cc auto picks for no corpus a test runs.
		want := engineMatchesEmbedded(t, e, nil, "--input", filepath.Join(dir, "*.jsonl"), "--threshold", "0.8", "--cc", "distributed")
		kept := strings.Count(string(want["kept.jsonl"]), "\n")
		removed := strings.Count(string(want["removed.jsonl"]), "\n")
		assert.Equal(t, matrixGenerated, kept+removed, "every generated document is kept or removed")
		assert.NotZero(t, removed, "the generated corpus has planted duplicates")
	})

	run("parquet", func(t *testing.T) {
		dir := fixture(t, "parquet", func(dir string) { writeParquetCorpus(t, smallCorpus(t), filepath.Join(dir, "corpus.parquet")) })
		want := engineMatchesEmbedded(t, e, nil, "--input", filepath.Join(dir, "corpus.parquet"), "--threshold", "0.8", "--cc", "local")
		require.Contains(t, want, "kept.parquet")
		require.Contains(t, want, "removed.jsonl")
		assert.NotEmpty(t, want["removed.jsonl"], "the Parquet corpus has planted duplicates")
	})

	run("annotate", func(t *testing.T) {
		want := engineMatchesEmbedded(t, e, nil, "--input", smallCorpus(t), "--threshold", "0.8", "--mode", "annotate", "--cc", "local")
		assert.Equal(t, matrixSmall, strings.Count(string(want["annotated.jsonl"]), "\n"), "annotated.jsonl has every record")
	})

	run("keep-field", func(t *testing.T) {
		want := engineMatchesEmbedded(t, e, nil, "--input", filepath.Join(repoRoot(t), "testdata", "keep-field.jsonl"), "--keep", "field:stars:max", "--cc", "local")
		clusters := jsonLines(t, want["clusters.jsonl"])
		require.Len(t, clusters, 1, "clusters.jsonl: %s", want["clusters.jsonl"])
		assert.Equal(t, "repo-b", clusters[0]["kept"], "the most-starred copy is kept")
	})

	run("index-against", func(t *testing.T) {
		// The first half of the small corpus is indexed; the second half is deduplicated
		// against it, so planted duplicates across the halves are removed by the index.
		dir := halves(t)
		// Format 1: the one built by the pipeline, hence on the engine.
		indexFlags := []string{"--quiet", "--index-format", "1", "--input", filepath.Join(dir, "part-0.jsonl")}
		embeddedIndex := filepath.Join(fixture(t, "index", func(dir string) {
			neardup(t, nil, append([]string{"index", "--output", filepath.Join(dir, "index")}, indexFlags...)...)
		}), "index")
		engineIndex := filepath.Join(t.TempDir(), "index")
		e.run(t, nil, append([]string{"index", "--output", engineIndex}, indexFlags...)...)
		assertSameFiles(t, withoutGenerationID(readTree(t, embeddedIndex)), withoutGenerationID(readTree(t, engineIndex)))

		want := engineMatchesEmbedded(t, e, nil, "--input", filepath.Join(dir, "part-1.jsonl"), "--threshold", "0.8", "--against", embeddedIndex, "--cc", "local")
		assert.Contains(t, string(want["removed.jsonl"]), `"index":"`+embeddedIndex+`"`, "the index removed documents")
	})

	run("s3", func(t *testing.T) {
		s3, env := startFakeS3(t)
		dir := halves(t)
		for _, name := range []string{"part-0.jsonl", "part-1.jsonl"} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			s3.put(t, "in/"+name, b)
		}
		// The layout engines and object stores get by default, on both; --cc is left at
		// auto: local embedded, and on the engine for a corpus this small.
		flags := []string{"--quiet", "--input", "s3://" + s3Bucket + "/in/*.jsonl", "--threshold", "0.8", "--layout", "sharded", "--compress", "zstd"}
		neardup(t, env, append([]string{"dedup", "--output", "s3://" + s3Bucket + "/embedded"}, flags...)...)
		e.run(t, env, append([]string{"dedup", "--output", "s3://" + s3Bucket + "/" + e.name}, flags...)...)
		want := s3.objects(t, "embedded/")
		assert.NotEmpty(t, want["removed/part-00001-of-00002.jsonl.zst"])
		got := s3.objects(t, e.name+"/")
		assertSameFiles(t, want, got)
		assertCCAuto(t, e, want, got)
	})

	run("one-file-sharded", func(t *testing.T) {
		// A corpus in one file, read in oneFileRanges byte ranges: each record output comes
		// in that many parts, each written from its range and none empty, whose
		// concatenation in part order is the single layout's file.
		in := oneFileCorpus(t)
		shards := strconv.Itoa(oneFileRanges)
		flags := []string{"dedup", "--quiet", "--input", in, "--threshold", "0.8", "--layout", "sharded", "--shards", shards, "--compress", "zstd"}
		want := embeddedRun(t, nil, flags...)
		out := filepath.Join(t.TempDir(), "out")
		e.run(t, nil, append(flags, "--output", out)...)
		got := readTree(t, out)
		assertSameFiles(t, want, got)
		single := embeddedRun(t, nil, "dedup", "--quiet", "--input", in, "--threshold", "0.8", "--layout", "single")
		for _, stem := range []string{"kept", "removed"} {
			var joined []byte
			for i := range oneFileRanges {
				part := unzstd(t, got[fmt.Sprintf("%s/part-%05d-of-%05d.jsonl.zst", stem, i, oneFileRanges)])
				if stem == "kept" {
					assert.NotEmpty(t, part, "kept part %d of the one file", i)
				}
				joined = append(joined, part...)
			}
			assert.True(t, string(single[stem+".jsonl"]) == string(joined), "%s parts joined in order are the single layout's %s.jsonl", stem, stem)
		}
		assert.NotEmpty(t, single["removed.jsonl"], "the one-file corpus has planted duplicates")
	})
}

// oneFileRanges is the number of byte ranges (source.DefaultChunkBytes each) the
// one-file corpus is read in.
const oneFileRanges = 4

// oneFileCorpus returns a generated corpus in one JSONL file of a little over three read
// ranges, so read in oneFileRanges of them: few, long documents, so that the engines'
// cost per document stays small.
func oneFileCorpus(t *testing.T) string {
	t.Helper()
	path := filepath.Join(fixture(t, "one-file corpus", func(dir string) {
		neardup(t, nil, "gen", "--n", "2000", "--seed", "7", "--mean-words", "21000", "--min-words", "16000", "--max-words", "26000",
			"--output", filepath.Join(dir, "corpus.jsonl"))
	}), "corpus.jsonl")
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Len(t, source.SplitFile(path, "jsonl", st.Size(), source.DefaultChunkBytes), oneFileRanges,
		"the read ranges of the one-file corpus's %d bytes", st.Size())
	return path
}

// engineMatchesEmbedded runs `neardup dedup --quiet flags...` embedded (once per flags,
// shared by the engines) and on e, asserts that both wrote the same files, and returns the
// embedded run's.
func engineMatchesEmbedded(t *testing.T, e *engine, env []string, flags ...string) map[string][]byte {
	t.Helper()
	// The same explicit layout on both: auto picks single embedded, sharded on an engine.
	// --cc is left at auto (local embedded, and on the engine for the tests' small
	// corpora) where the caller does not set it.
	flags = append([]string{"dedup", "--quiet", "--layout", "single"}, flags...)
	want := embeddedRun(t, env, flags...)
	out := filepath.Join(t.TempDir(), "out")
	e.run(t, env, append(flags, "--output", out)...)
	got := readTree(t, out)
	assertSameFiles(t, want, got)
	if !slices.Contains(flags, "--cc") {
		assertCCAuto(t, e, want, got)
	}
	return want
}

// embeddedRun runs `neardup flags... --output DIR` embedded, once per flags and env for
// the whole package, and returns the files it wrote.
func embeddedRun(t *testing.T, env []string, flags ...string) map[string][]byte {
	t.Helper()
	embedded := filepath.Join(fixture(t, "embedded "+strings.Join(env, " ")+" "+strings.Join(flags, " "), func(dir string) {
		neardup(t, env, append(flags, "--output", filepath.Join(dir, "out"))...)
	}), "out")
	return readTree(t, embedded)
}

// assertCCAuto checks what --cc auto chose: union-find embedded, where the workers are in
// the launching process, and on the engine, whose worker holds a small corpus's nodes.
func assertCCAuto(t *testing.T, e *engine, embedded, engine map[string][]byte) {
	t.Helper()
	mode := func(files map[string][]byte) any {
		cc, _ := statsWithoutTimings(t, files["stats.json"])["connected_components"].(map[string]any)
		return cc["mode"]
	}
	assert.Equal(t, "local", mode(embedded), "--cc auto embedded")
	assert.Equal(t, "local", mode(engine), "--cc auto on %s", e.name)
}

var fixtures struct {
	sync.Mutex
	dir string // under the binary directory, removed after the tests
	m   map[string]*fixtureDir
}

type fixtureDir struct {
	once sync.Once
	path string
	done bool // fill returned
}

// fixture returns a directory shared by every test of the package, filled by fill the
// first time name is asked for. fill may ask for other fixtures.
func fixture(t *testing.T, name string, fill func(dir string)) string {
	t.Helper()
	fixtures.Lock()
	if fixtures.m == nil {
		fixtures.dir = filepath.Join(binaries(t), "fixtures")
		fixtures.m = map[string]*fixtureDir{}
	}
	f, ok := fixtures.m[name]
	if !ok {
		f = &fixtureDir{path: filepath.Join(fixtures.dir, strconv.Itoa(len(fixtures.m)))}
		fixtures.m[name] = f
	}
	fixtures.Unlock()
	f.once.Do(func() {
		require.NoError(t, os.MkdirAll(f.path, 0o755))
		fill(f.path)
		f.done = true
	})
	require.True(t, f.done, "fixture %q failed in an earlier test", name)
	return f.path
}

// genCorpus returns `neardup gen --n n --seed seed`'s corpus.
func genCorpus(t *testing.T, n, seed int) string {
	t.Helper()
	dir := fixture(t, fmt.Sprintf("gen %d %d", n, seed), func(dir string) {
		// Generated by the binary, not in this process: the e2e tests measure the peak RSS
		// of the processes they start, which starts from this one's at the fork.
		neardup(t, nil, "gen", "--n", strconv.Itoa(n), "--seed", strconv.Itoa(seed), "--output", filepath.Join(dir, "corpus.jsonl"))
	})
	return filepath.Join(dir, "corpus.jsonl")
}

func smallCorpus(t *testing.T) string { return genCorpus(t, matrixSmall, 11) }

// halves returns a directory holding the small corpus split in part-0.jsonl and part-1.jsonl.
func halves(t *testing.T) string {
	return fixture(t, "halves", func(dir string) { splitCorpus(t, smallCorpus(t), dir, 2) })
}

// splitCorpus writes the lines of corpus into parts files part-0.jsonl... of dir, in
// consecutive runs, so that planted duplicates fall into other files than their originals.
func splitCorpus(t *testing.T, corpus, dir string, parts int) {
	t.Helper()
	b, err := os.ReadFile(corpus)
	require.NoError(t, err)
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	per := (len(lines) + parts - 1) / parts
	for i := 0; i < parts; i++ {
		lo, hi := min(i*per, len(lines)), min((i+1)*per, len(lines))
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", i)), []byte(strings.Join(lines[lo:hi], "")), 0o644))
	}
}

// corpusRow is a generated document as a Parquet row.
type corpusRow struct {
	ID   string `parquet:"id"`
	Text string `parquet:"text"`
}

// writeParquetCorpus writes the JSONL corpus as Parquet, in row groups small enough that
// the file is read in several splits.
func writeParquetCorpus(t *testing.T, corpus, path string) {
	t.Helper()
	f, err := os.Open(corpus)
	require.NoError(t, err)
	defer f.Close()
	var rows []corpusRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r corpusRow
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		rows = append(rows, r)
	}
	require.NoError(t, sc.Err())
	out, err := os.Create(path)
	require.NoError(t, err)
	w := parquet.NewGenericWriter[corpusRow](out, parquet.MaxRowsPerRowGroup(200))
	_, err = w.Write(rows)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.NoError(t, out.Close())
}

// readTree reads every file under dir by its slash-separated relative path, and checks
// that no temporary directory of an unfinished commit is left.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		require.NotContains(t, rel, ".neardup-tmp", "left in %s", dir)
		out[filepath.ToSlash(rel)], err = os.ReadFile(path)
		return err
	}))
	return out
}

// generationID is the random part of an index generation's directory name, unique per
// build so that two builds never commit into one directory.
var generationID = regexp.MustCompile(`(gen-[0-9]+-)[0-9a-f]+`)

// withoutGenerationID replaces the generation IDs of an index's file names and
// manifest.json with X.
func withoutGenerationID(files map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for name, b := range files {
		if name == "manifest.json" {
			b = generationID.ReplaceAll(b, []byte("${1}X"))
		}
		out[generationID.ReplaceAllString(name, "${1}X")] = b
	}
	return out
}

// assertSameFiles asserts that two runs wrote the same files with the same bytes, except
// the "timings" object of stats.json, which is wall-clock, and report.html, which shows
// them and the output directory (only checked present).
func assertSameFiles(t *testing.T, want, got map[string][]byte) {
	t.Helper()
	assert.Equal(t, sortedKeys(want), sortedKeys(got), "files written")
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			continue
		}
		switch filepath.Base(name) {
		case "stats.json":
			// connected_components says how clusters were labelled, which --cc auto
			// chooses by runner and corpus size; what they are is in the other files.
			ws, gs := statsWithoutTimings(t, w), statsWithoutTimings(t, g)
			delete(ws, "connected_components")
			delete(gs, "connected_components")
			assert.Equal(t, ws, gs, "%s without timings", name)
		case "report.html":
			assert.Contains(t, string(g), "<h1>neardup report</h1>")
		default:
			if len(w)+len(g) < 8192 { // small enough to show the difference
				assert.Equal(t, string(w), string(g), "%s differs", name)
			} else {
				assert.True(t, string(w) == string(g), "%s differs (%d bytes, want %d)", name, len(g), len(w))
			}
		}
	}
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
