package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// neardupFails runs neardup expecting failure and returns its exit status and stderr.
func neardupFails(t *testing.T, args ...string) (int, string) {
	t.Helper()
	code, _, stderr := runNeardup(t, args...)
	require.NotZero(t, code, "neardup %s: want a failure", strings.Join(args, " "))
	return code, stderr
}

// The CLI around the index: build, --info, dedup --against, and the exit status and
// message of each refusal.
func TestIndexCLI(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	out, _ := neardup(t, nil, "index", "--quiet", "--input", "testdata/seed.jsonl", "--output", idx, "--ngram", "2")
	assert.Contains(t, out, "indexed 4 documents (0 records rejected, not indexed) into "+idx)

	info, _ := neardup(t, nil, "index", "--info", idx)
	for _, want := range []string{"version 2, generation 1", "in 1 segments", "documents:     4\n", "word 2-grams", "checksums:     ok"} {
		assert.Contains(t, info, want)
	}

	// The seed corpus against its own index: every document is removed by its indexed copy.
	o := filepath.Join(dir, "out")
	out, _ = neardup(t, nil, "dedup", "--quiet", "--input", "testdata/seed.jsonl", "--against", idx, "--ngram", "2", "--output", o)
	assert.Contains(t, out, "4 documents: 0 kept, 4 removed")
	removed, err := os.ReadFile(filepath.Join(o, "removed.jsonl"))
	require.NoError(t, err)
	assert.Contains(t, string(removed), `{"id":"D4","cluster":"D1","index":"`+idx+`","similarity":1.0,`)

	// Format 2 is built in this process from JSONL: other inputs are refused naming
	// --index-format 1, which builds format 1 with the pipeline.
	text := filepath.Join(dir, "seed.txt")
	require.NoError(t, os.WriteFile(text, []byte("one text\nanother text\n"), 0o644))
	code, stderr := neardupFails(t, "index", "--input", text, "--output", filepath.Join(dir, "idx-text"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--input "+text+": a format 2 index is built from JSONL; add --index-format 1")
	out, _ = neardup(t, nil, "index", "--quiet", "--index-format", "1", "--input", text, "--output", filepath.Join(dir, "idx-text"))
	assert.Contains(t, out, "indexed 2 documents")

	code, stderr = neardupFails(t, "dedup", "--quiet", "--input", "testdata/seed.jsonl", "--against", idx, "--output", filepath.Join(dir, "o2"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "neardup dedup: error: index "+idx+" was built with other method flags; rerun with the index's values or rebuild it:\nneardup dedup: error:   ngram: index 2, this run 5\n")

	code, stderr = neardupFails(t, "dedup", "--quiet", "--input", "testdata/seed.jsonl", "--against", filepath.Join(dir, "none"), "--ngram", "2", "--output", filepath.Join(dir, "o3"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "neardup dedup: error: index "+filepath.Join(dir, "none")+": no manifest.json (not a neardup index, or its first generation was never completed)\n")
}

// neardup index --index-format 1 keeps Beam's and Prism's logging off the terminal, in
// the run's beam.log, as dedup does: a build prints no log lines, leaves no temporary directory or
// lock, and a failed one names its log, which holds them.
func TestIndexKeepsRunnerLogsInBeamLog(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	_, stderr := neardup(t, nil, "index", "--index-format", "1", "--input", "testdata/seed.jsonl", "--output", idx, "--ngram", "2")
	assert.NotContains(t, stderr, "level=")
	left, err := filepath.Glob(filepath.Join(idx, ".neardup-*"))
	require.NoError(t, err)
	assert.Empty(t, left)

	bad := filepath.Join(dir, "bad.jsonl.gz")
	require.NoError(t, os.WriteFile(bad, []byte("not gzip"), 0o644))
	code, stderr := neardupFails(t, "index", "--index-format", "1", "--input", bad, "--output", filepath.Join(dir, "idx2"), "--ngram", "2")
	assert.Equal(t, 1, code)
	assert.NotContains(t, stderr, "level=")
	_, logPath, ok := strings.Cut(strings.TrimSpace(stderr), "the runner's log is ")
	require.True(t, ok, stderr)
	logPath = strings.TrimSuffix(logPath, ")")
	assert.Equal(t, "beam.log", filepath.Base(logPath))
	log, err := os.ReadFile(logPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), "level=INFO")
}

// partials lists the .partial files under an index directory's generations.
func partials(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "gen-*", "*.partial"))
	require.NoError(t, err)
	return m
}

// `neardup index` stopped by SIGTERM while it writes its segment removes the partial
// file (and its generation directory); one stopped by SIGKILL leaves it, and the next
// build into the directory removes it when it commits.
func TestIndexInterruptedLeavesNoPartialSegment(t *testing.T) {
	big := paddedCorpus(t, 60000, 200)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			idx := filepath.Join(t.TempDir(), "idx")
			p := startNeardup(t, "index", "--input", big, "--output", idx)
			waitFor(t, p, "the segment is being written", func() bool { return len(partials(t, idx)) > 0 })
			require.NoError(t, p.cmd.Process.Signal(sig))
			require.Error(t, p.wait())
			if sig == syscall.SIGTERM {
				assert.Contains(t, p.stderr.String(), "interrupted by SIGTERM; removed the partial index file")
				assert.Empty(t, partials(t, idx))
				gens, _ := filepath.Glob(filepath.Join(idx, "gen-*"))
				assert.Empty(t, gens, "the empty generation directory is removed")
				return
			}
			left := partials(t, idx)
			require.Len(t, left, 1, "SIGKILL leaves the partial file")
			neardup(t, nil, "index", "--input", "testdata/seed.jsonl", "--output", idx)
			assert.Empty(t, partials(t, idx), "the next build removes what the killed one left")
			_, err := os.Stat(filepath.Dir(left[0]))
			assert.True(t, os.IsNotExist(err), "and its generation directory")
		})
	}
}
