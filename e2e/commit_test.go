package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
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
		view[e.Name()] = string(b)
	}
	stripTimings(t, view)
	return view
}

// stripTimings drops the wall-clock "timings" from view's stats.json.
func stripTimings(t *testing.T, view map[string]string) {
	t.Helper()
	if b, ok := view["stats.json"]; ok {
		var st map[string]any
		require.NoError(t, json.Unmarshal([]byte(b), &st))
		delete(st, "timings")
		delete(st, "resources") // peak RSS and spilled bytes vary as timings do
		out, _ := json.Marshal(st)
		view["stats.json"] = string(out)
	}
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
func runKilledAt(t *testing.T, n int, env []string, args ...string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "neardup"), args...)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(append(os.Environ(), "TMPDIR="+t.TempDir(), fmt.Sprintf("%s=%d", killEnv, n)), env...)
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
	if !runKilledAt(t, n, nil, append(newArgs, "--output", out)...) {
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
	sort.Strings(out)
	return out
}

// s3View is readerView for the objects under s3://s3Bucket/prefix/; hidden reports
// whether objects of a commit or lock (.neardup-*) are there.
func s3View(t *testing.T, backend *s3mem.Backend, prefix string) (view map[string]string, hidden []string) {
	t.Helper()
	list, err := backend.ListBucket(s3Bucket, &gofakes3.Prefix{Prefix: prefix, HasPrefix: true}, gofakes3.ListBucketPage{})
	require.NoError(t, err)
	view = map[string]string{}
	for _, c := range list.Contents {
		name := strings.TrimPrefix(c.Key, prefix)
		if strings.HasPrefix(name, ".neardup-") {
			hidden = append(hidden, name)
			continue
		}
		obj, err := backend.GetObject(s3Bucket, c.Key, nil)
		require.NoError(t, err)
		b, err := io.ReadAll(obj.Contents)
		obj.Contents.Close()
		require.NoError(t, err)
		view[name] = string(b)
	}
	stripTimings(t, view)
	return view, hidden
}

// On s3:// an --overwrite run killed at each step of its commit in turn leaves, whenever
// stats.json is there and the journal is not, exactly one complete set; the next run
// rolls the commit forward.
func TestOverwriteKilledAtEveryCommitStepOnS3(t *testing.T) {
	s3, env := startFakeS3(t)
	seed, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "seed.jsonl"))
	require.NoError(t, err)
	s3.put(t, "in/seed.jsonl", seed)
	backend := s3.backend
	in := "s3://" + s3Bucket + "/in/*.jsonl"
	oldArgs := []string{"dedup", "--input", in, "--ngram", "2", "--quiet"}
	newArgs := []string{"dedup", "--input", in, "--ngram", "3", "--mode", "annotate", "--quiet", "--overwrite"}
	neardup(t, env, append(newArgs, "--output", "s3://"+s3Bucket+"/fresh")...)
	newBytes, _ := s3View(t, backend, "fresh/")

	sawOld, sawNew, sawPending := false, false, false
	for n := 1; ; n++ {
		prefix := fmt.Sprintf("out-%d/", n)
		out := "s3://" + s3Bucket + "/" + strings.TrimSuffix(prefix, "/")
		neardup(t, env, append(oldArgs, "--output", out)...)
		oldBytes, _ := s3View(t, backend, prefix)
		if !runKilledAt(t, n, env, append(newArgs, "--output", out)...) {
			got, hidden := s3View(t, backend, prefix)
			assert.Equal(t, newBytes, got)
			assert.Empty(t, hidden)
			require.Greater(t, n, 5, "the hook killed no commit step")
			break
		}
		got, _ := s3View(t, backend, prefix)
		_, jerr := backend.HeadObject(s3Bucket, prefix+".neardup-commit.json")
		_, marked := got["stats.json"]
		switch {
		case jerr == nil || !marked:
			sawPending = true // not to be read: the next run rolls it forward
		case assert.ObjectsAreEqual(oldBytes, got):
			sawOld = true
		case assert.ObjectsAreEqual(newBytes, got):
			sawNew = true
		default:
			t.Fatalf("killed at commit step %d, %s holds stats.json, no journal, and neither set: %v", n, out, keys(got))
		}
		neardup(t, env, append(newArgs, "--output", out)...)
		got, hidden := s3View(t, backend, prefix)
		assert.Equal(t, newBytes, got, "the run after a kill at step %d", n)
		for _, h := range hidden {
			// The killed run's temporary objects may stay: on s3:// the next run does not
			// find them (files.SubdirsWithPrefix), a known gap outside the commit.
			assert.True(t, strings.HasPrefix(h, ".neardup-tmp-"), "no journal or lock is left (step %d): %s", n, h)
		}
	}
	assert.True(t, sawOld && sawNew && sawPending, "kills before the journal, while it was there, after it: %v %v %v", sawOld, sawPending, sawNew)
}

// indexState is an index's generation and document count, from its manifest.
func indexState(t *testing.T, dir string) (gen, docs int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	require.NoError(t, err)
	var m struct {
		Generation int `json:"generation"`
		Documents  int `json:"documents"`
	}
	require.NoError(t, json.Unmarshal(b, &m))
	return m.Generation, m.Documents
}

// A dedup --update-index run killed at each step of its commit in turn leaves its
// outputs and the index's new generation committed as one: no outputs and the index as
// it was, or both; or a commit cut short that the next run into the output finishes,
// index included, saying so. Never the outputs without the index's generation.
func TestUpdateIndexKilledAtEveryCommitStep(t *testing.T) {
	base := t.TempDir()
	first := filepath.Join(base, "first.jsonl")
	require.NoError(t, os.WriteFile(first, []byte(`{"id": "X1", "text": "black white"}`+"\n"+`{"id": "X2", "text": "one two three four"}`+"\n"), 0o644))
	idx := filepath.Join(base, "idx")
	neardup(t, nil, "index", "--input", first, "--ngram", "2", "--output", idx)
	args := []string{"dedup", "--input", "testdata/seed.jsonl", "--ngram", "2", "--quiet", "--update-index", "--overwrite"}

	ref := filepath.Join(base, "ref-idx")
	require.NoError(t, os.CopyFS(ref, os.DirFS(idx)))
	fresh := filepath.Join(base, "fresh")
	neardup(t, nil, append(args, "--against", ref, "--output", fresh)...)
	newBytes := readerView(t, fresh)
	_, refDocs := indexState(t, ref)
	gen0, docs0 := indexState(t, idx)
	require.Greater(t, refDocs, docs0, "the run adds documents to the index")

	const batch = 8
	var mu sync.Mutex
	seen := map[string]int{}
	for first := 1; seen["whole"] == 0; first += batch {
		require.Less(t, first, 400, "the commit never ended")
		t.Run(fmt.Sprintf("steps %d-%d", first, first+batch-1), func(t *testing.T) {
			for n := first; n < first+batch; n++ {
				t.Run(fmt.Sprint(n), func(t *testing.T) {
					t.Parallel()
					in, out := filepath.Join(base, fmt.Sprintf("idx-%d", n)), filepath.Join(base, fmt.Sprintf("out-%d", n))
					require.NoError(t, os.CopyFS(in, os.DirFS(idx)))
					run := append(args, "--against", in, "--output", out)
					left := "whole"
					if runKilledAt(t, n, nil, run...) {
						_, pending := os.Lstat(filepath.Join(out, ".neardup-current"))
						gen, docs := indexState(t, in)
						switch view := readerView(t, out); {
						case pending == nil:
							left = "pending"
						case len(view) == 0:
							left = "old"
							assert.Equal(t, [2]int{gen0, docs0}, [2]int{gen, docs}, "step %d: no outputs, but the index changed", n)
						case assert.ObjectsAreEqual(keys(newBytes), keys(view)):
							left = "new" // (the outputs name the index and the output directory)
							assert.Equal(t, [2]int{gen0 + 1, refDocs}, [2]int{gen, docs}, "step %d: outputs committed without the index's generation", n)
						default:
							t.Fatalf("step %d: %s holds neither set: %v", n, out, keys(view))
						}
						if left == "pending" {
							code, _, stderr := runNeardup(t, run...)
							require.Equal(t, 0, code, stderr)
							if assert.Contains(t, stderr, "the commit of a run that was killed", "step %d", n) &&
								strings.Contains(stderr, "finished the commit") {
								assert.Contains(t, stderr, fmt.Sprintf("generation %d of index %s committed with them", gen0+1, in), "step %d", n)
							}
							_, docs := indexState(t, in)
							assert.Equal(t, refDocs, docs, "step %d: the index after the next run", n)
						}
					} else {
						assert.Equal(t, keys(newBytes), keys(readerView(t, out)))
						assert.Equal(t, [2]int{gen0 + 1, refDocs}, func() [2]int { g, d := indexState(t, in); return [2]int{g, d} }())
					}
					mu.Lock()
					seen[left]++
					mu.Unlock()
				})
			}
		})
	}
	t.Logf("kills that left: %v", seen)
	assert.Greater(t, seen["pending"], 0, "some kill came during the switch")
}
