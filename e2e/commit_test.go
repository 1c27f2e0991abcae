package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// killEnv is io/commit.KillEnv: N makes neardup SIGKILL itself at the Nth step of its
// commit.
const killEnv = "NEARDUP_TEST_KILL_AT_COMMIT_STEP"

// readerView is what a reader of dir finds: each visible file (following symlinks;
// hidden entries and dangling symlinks are not there) and its bytes, with the wall-clock
// "timings" of stats.json left out.
func readerView(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	view := map[string]string{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		if e.Name() == "stats.json" {
			var st map[string]any
			require.NoError(t, json.Unmarshal(b, &st))
			delete(st, "timings")
			b, _ = json.Marshal(st)
		}
		view[e.Name()] = string(b)
	}
	return view
}

// copyDir copies the files directly in src (an output directory) into a new dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dst, 0o777))
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644))
	}
}

// runKilledAt runs neardup with the commit kill hook set to n and reports whether the
// hook killed it (otherwise it must have succeeded).
func runKilledAt(t *testing.T, n int, args ...string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "neardup"), args...)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), fmt.Sprintf("%s=%d", killEnv, n))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil {
		return false
	}
	ee, ok := err.(*exec.ExitError)
	require.True(t, ok, "%v", err)
	require.Equal(t, "signal: killed", ee.Error(), "neardup failed other than by the hook:\n%s", stderr.String())
	return true
}

// An --overwrite run killed at each step of its commit in turn leaves the directory
// holding exactly the earlier run's outputs (byte for byte) or exactly its own (as a
// run without the kill writes them), never a mix; the next run into the directory
// finishes or undoes the commit and commits its own outputs.
//
// The earlier run is a dedup, the killed one an annotate run: they write different
// names, so the commit must also remove outputs of the earlier set.
func TestOverwriteKilledAtEveryCommitStep(t *testing.T) {
	base := t.TempDir()
	oldArgs := []string{"dedup", "--input", "testdata/seed.jsonl", "--ngram", "2", "--quiet"}
	newArgs := []string{"dedup", "--input", "testdata/seed.jsonl", "--ngram", "3", "--mode", "annotate", "--quiet", "--overwrite"}

	earlier := filepath.Join(base, "earlier")
	neardup(t, nil, append(oldArgs, "--output", earlier)...)
	oldBytes := readerView(t, earlier)
	require.Contains(t, oldBytes, "report.html")
	fresh := filepath.Join(base, "fresh")
	neardup(t, nil, append(newArgs, "--output", fresh)...)
	newBytes := readerView(t, fresh)
	require.NotContains(t, newBytes, "report.html")
	require.NotContains(t, newBytes, "kept.jsonl")
	require.Contains(t, newBytes, "annotated.jsonl")

	// The steps are tried a batch at a time, in parallel (a run mostly waits on Prism),
	// until a run outlives its kill step: that one committed in full.
	const batch = 8
	var mu sync.Mutex
	seen := map[string]int{} // "old", "new", "whole": how many kills left each
	for first := 1; seen["whole"] == 0; first += batch {
		require.Less(t, first, 400, "the commit never ended")
		t.Run(fmt.Sprintf("steps %d-%d", first, first+batch-1), func(t *testing.T) {
			for n := first; n < first+batch; n++ {
				t.Run(fmt.Sprint(n), func(t *testing.T) {
					t.Parallel()
					got := killedCommit(t, n, earlier, filepath.Join(base, fmt.Sprintf("out-%d", n)), newArgs, oldBytes, newBytes)
					mu.Lock()
					seen[got]++
					mu.Unlock()
				})
			}
		})
	}
	t.Logf("kills that left the earlier set: %d, the new set: %d", seen["old"], seen["new"])
	assert.Greater(t, seen["old"], 0, "some kill came before the switch")
	assert.Greater(t, seen["new"], 0, "some kill came after it")
}

// killedCommit runs newArgs with --overwrite into out, a copy of earlier, killing it at
// commit step n, checks that out holds one complete set, and that the next run into it
// recovers. It says which set the kill left: "old", "new", or "whole" when the run
// ended before step n.
func killedCommit(t *testing.T, n int, earlier, out string, newArgs []string, oldBytes, newBytes map[string]string) string {
	copyDir(t, earlier, out)
	if !runKilledAt(t, n, append(newArgs, "--output", out)...) {
		assert.Equal(t, newBytes, readerView(t, out), "a commit that was not killed")
		require.Greater(t, n, 10, "the hook killed no commit step")
		return "whole"
	}
	left := ""
	switch got := readerView(t, out); {
	case assert.ObjectsAreEqual(oldBytes, got):
		left = "old"
	case assert.ObjectsAreEqual(newBytes, got):
		left = "new"
	default:
		t.Fatalf("killed at commit step %d, %s holds neither the earlier set nor the new one:\n%v", n, out, keys(got))
	}

	// The next run recovers: it says what it found, and commits its own set.
	_, midCommit := os.Lstat(filepath.Join(out, ".neardup-current"))
	code, _, stderr := runNeardup(t, append(newArgs, "--output", out)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "took over the lock of a run that is no longer running")
	if midCommit == nil {
		assert.Contains(t, stderr, "the commit of a run that was killed", "step %d", n)
	}
	assert.Equal(t, newBytes, readerView(t, out), "the run after a kill at step %d", n)
	hidden, err := filepath.Glob(filepath.Join(out, ".neardup-*"))
	require.NoError(t, err)
	assert.Empty(t, hidden, "nothing of either run is left (step %d)", n)
	return left
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
