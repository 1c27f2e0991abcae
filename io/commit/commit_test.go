package commit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outputs are the names a run may write, in commit order (the marker last), and
// older, every name any run may leave.
var (
	dedupNames    = []string{"kept", "removed.jsonl", "report.html", "stats.json"}
	annotateNames = []string{"annotated.jsonl", "stats.json"}
	allNames      = []string{"annotated.jsonl", "kept", "removed.jsonl", "report.html", "stats.json"}
)

// set is an output directory's content as a reader sees it: path (slash-separated,
// relative) to bytes, following symlinks, without hidden entries or ones that dangle.
type set map[string]string

func writeSet(t *testing.T, dir string, s set) {
	t.Helper()
	for p, body := range s {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o777))
		require.NoError(t, os.WriteFile(full, []byte(body), 0o666))
	}
}

func readSet(t *testing.T, dir string) set {
	t.Helper()
	got := set{}
	var walk func(rel string)
	walk = func(rel string) {
		entries, err := os.ReadDir(filepath.Join(dir, rel))
		require.NoError(t, err)
		for _, e := range entries {
			if rel == "" && strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(rel, e.Name())
			st, err := os.Stat(filepath.Join(dir, p)) // follows symlinks
			if os.IsNotExist(err) {
				continue // a dangling symlink reads as absent
			}
			require.NoError(t, err)
			if st.IsDir() {
				walk(p)
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, p))
			require.NoError(t, err)
			got[filepath.ToSlash(p)] = string(b)
		}
	}
	walk("")
	return got
}

func hidden(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// A dedup run's outputs with three parts, replaced by a dedup run's with two (parts
// directories are one entry), or by an annotate run's, which writes other names.
var (
	mine   = set{"notes.txt": "not an output"}
	oldSet = set{"kept/part-0": "old 0", "kept/part-1": "old 1", "kept/part-2": "old 2",
		"removed.jsonl": "old removed", "report.html": "old report", "stats.json": "old stats"}
	newSets = map[string]struct {
		names []string
		files set
	}{
		"dedup":    {dedupNames, set{"kept/part-0": "new 0", "kept/part-1": "new 1", "removed.jsonl": "new removed", "report.html": "new report", "stats.json": "new stats"}},
		"annotate": {annotateNames, set{"annotated.jsonl": "new annotated", "stats.json": "new stats"}},
		"first":    {dedupNames, set{"kept/part-0": "new 0", "removed.jsonl": "new removed", "report.html": "new report", "stats.json": "new stats"}},
	}
)

func with(a, b set) set {
	out := set{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// prepare writes the older outputs (none for "first") and a run's temporary directory.
func prepare(t *testing.T, kind string) (dir, tmp string, before, after set) {
	dir = t.TempDir()
	before = mine
	if kind != "first" {
		before = with(mine, oldSet)
	}
	writeSet(t, dir, before)
	tmp = filepath.Join(dir, ".neardup-tmp-0123456789abcdef")
	writeSet(t, tmp, newSets[kind].files)
	writeSet(t, tmp, set{"beam.log": "log", "parts/x": "leftover"})
	return dir, tmp, before, with(mine, newSets[kind].files)
}

// killed is what the onStep hook panics with, standing for a SIGKILL.
type killed struct{}

// commitUntil runs Commit, stopping it as a kill would before its step n. It reports
// whether the commit was stopped.
func commitUntil(t *testing.T, tmp, dir string, names []string, n int) (stopped bool) {
	t.Helper()
	steps = 0
	onStep = func(i int) {
		if i == n {
			panic(killed{})
		}
	}
	defer func() {
		onStep = nil
		if r := recover(); r != nil {
			if _, ok := r.(killed); !ok {
				panic(r)
			}
			stopped = true
		}
	}()
	require.NoError(t, Commit(context.Background(), tmp, dir, names, allNames))
	return false
}

// Killed at each step of the commit in turn, the directory holds exactly the older
// outputs or exactly the new ones at that moment (locally) and after Recover, which
// ends the commit: with the new set from the switch on. The next commit then works.
func TestKilledAtEveryStepLeavesOneSet(t *testing.T) {
	for _, journal := range []bool{false, true} {
		for kind := range newSets {
			t.Run(fmt.Sprintf("%s/journal=%v", kind, journal), func(t *testing.T) {
				localSwitch = !journal
				defer func() { localSwitch = true }()
				sawOld, sawNew := false, false
				for n := 1; ; n++ {
					dir, tmp, before, after := prepare(t, kind)
					if !commitUntil(t, tmp, dir, newSets[kind].names, n) {
						assert.Equal(t, after, readSet(t, dir))
						assert.Empty(t, hidden(t, dir), "nothing of the commit is left")
						require.Greater(t, n, 5, "the commit has steps")
						break
					}
					mid := readSet(t, dir)
					_, pending := os.Stat(filepath.Join(dir, Journal))
					// A journal marks a directory being rolled forward; without the marker
					// (stats.json) no reader takes it for finished either.
					if _, marked := mid["stats.json"]; !journal || pending != nil || marked {
						assert.Contains(t, []set{before, after}, mid, "killed at step %d", n)
					}
					msg, err := Recover(context.Background(), dir)
					require.NoError(t, err, "step %d", n)
					got := readSet(t, dir)
					switch {
					case equal(got, before) && !equal(before, after):
						sawOld = true
						if journal {
							assert.Empty(t, msg)
						}
					case equal(got, after):
						sawNew = true
						if journal && pending == nil {
							assert.Contains(t, msg, "holds that run's outputs")
						}
					default:
						t.Fatalf("killed at step %d and recovered, the directory holds neither set: %v", n, got)
					}
					if !journal {
						assert.Equal(t, equal(got, after), mid == nil || equal(mid, after), "recovery keeps what readers saw (step %d)", n)
					}
					require.NoError(t, os.RemoveAll(tmp)) // as the next run's clean-up does
					// The next run commits over whatever set is there.
					tmp2 := filepath.Join(dir, ".neardup-tmp-fedcba9876543210")
					writeSet(t, tmp2, newSets["annotate"].files)
					require.NoError(t, Commit(context.Background(), tmp2, dir, annotateNames, allNames))
					assert.Equal(t, with(mine, newSets["annotate"].files), readSet(t, dir))
					assert.Empty(t, hidden(t, dir))
				}
				assert.True(t, sawNew, "some kill came after the switch")
				if kind != "first" {
					assert.True(t, sawOld, "some kill came before the switch")
				}
			})
		}
	}
}

func equal(a, b set) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// A journal is input: names that leave the directory are refused, not acted on.
func TestHostileJournalIsRefused(t *testing.T) {
	for _, body := range []string{
		`{"temp":"../x","names":["stats.json"]}`,
		`{"temp":".neardup-tmp-1","names":["../../etc/passwd"]}`,
		`{"temp":".neardup-tmp-1","names":["stats.json"],"remove":["/etc"]}`,
		`{"temp":".neardup-tmp-1","names":[]}`,
		`{"temp":".neardup-tmp-1","names":[".neardup-lock"]}`,
		`not json`,
	} {
		dir := t.TempDir()
		writeSet(t, dir, set{Journal: body, "stats.json": "keep me"})
		_, err := Recover(context.Background(), dir)
		require.Error(t, err, body)
		assert.Contains(t, err.Error(), "not a commit journal", body)
		assert.Equal(t, set{"stats.json": "keep me"}, readSet(t, dir))
	}
}

// sideHandler is a follow-up that writes "done" to the file its data names, as an
// index's commit stands beside the outputs'.
func init() {
	Handle("test-side", func(ctx context.Context, data []byte) error {
		return os.WriteFile(string(data), []byte("done"), 0o666)
	})
}

// A follow-up commits with the outputs: killed at each step in turn and recovered, the
// directory holds the older set and the follow-up did not run, or the new set and it
// ran; never the new outputs without it (or it without them). Recover says so.
func TestFollowUpCommitsWithTheOutputs(t *testing.T) {
	for _, journal := range []bool{false, true} {
		t.Run(fmt.Sprintf("journal=%v", journal), func(t *testing.T) {
			localSwitch = !journal
			defer func() { localSwitch = true }()
			sawOld, sawNew := false, false
			for n := 1; ; n++ {
				dir, tmp, before, after := prepare(t, "dedup")
				side := filepath.Join(t.TempDir(), "side")
				require.NoError(t, SetFollowUp(context.Background(), tmp, "test-side", "the side file", []byte(side)))
				stopped := commitUntil(t, tmp, dir, newSets["dedup"].names, n)
				msg := ""
				if stopped {
					var err error
					msg, err = Recover(context.Background(), dir)
					require.NoError(t, err, "step %d", n)
				}
				_, serr := os.Stat(side)
				got := readSet(t, dir)
				switch {
				case equal(got, after):
					sawNew = sawNew || stopped
					assert.NoError(t, serr, "step %d: the new outputs without their follow-up", n)
					if stopped && msg != "" {
						assert.Contains(t, msg, "and the side file committed with them", "step %d", n)
					}
				case equal(got, before):
					sawOld = true
					assert.Error(t, serr, "step %d: the follow-up ran without the outputs", n)
				default:
					t.Fatalf("step %d: neither set: %v", n, got)
				}
				os.RemoveAll(tmp)
				if !stopped {
					break
				}
			}
			assert.True(t, sawOld && sawNew, "kills came before and after the switch")
		})
	}
}

// A follow-up that fails after the switch leaves the new outputs committed and is
// reported as a *FollowUpError naming what was not committed.
func TestFailedFollowUpIsReported(t *testing.T) {
	Handle("test-fail", func(context.Context, []byte) error { return fmt.Errorf("index changed meanwhile") })
	dir, tmp, _, after := prepare(t, "dedup")
	require.NoError(t, SetFollowUp(context.Background(), tmp, "test-fail", "the index's generation 2", nil))
	err := Commit(context.Background(), tmp, dir, newSets["dedup"].names, allNames)
	var fe *FollowUpError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "the index's generation 2: index changed meanwhile", err.Error())
	assert.Equal(t, after, readSet(t, dir))
	assert.Empty(t, hidden(t, dir))
}

// event is one file operation step or sync seen during a commit, with what a recovery
// would find at that moment: where Current points and whether Journal exists.
type event struct {
	what, current string
	journal       bool
}

// recordCommit commits kind's set, recording every step and sync.
func recordCommit(t *testing.T, kind string) (dir string, log []event) {
	dir, tmp, _, _ := prepare(t, kind)
	require.NoError(t, SetFollowUp(context.Background(), tmp, "test-side", "the side file", []byte(filepath.Join(t.TempDir(), "side"))))
	see := func(what string) {
		cur, err := os.Readlink(filepath.Join(dir, Current))
		if err == nil {
			cur = filepath.Base(cur)
		}
		_, jerr := os.Lstat(filepath.Join(dir, Journal))
		rel, _ := filepath.Rel(dir, what)
		log = append(log, event{what: rel, current: cur, journal: jerr == nil})
	}
	onStep = func(int) { see("step") }
	onSync = func(kind, p string) { see(p) }
	defer func() { onStep, onSync = nil, nil }()
	require.NoError(t, Commit(context.Background(), tmp, dir, newSets[kind].names, allNames))
	for i := range log {
		if log[i].what == "../step" {
			log[i].what = "step"
		}
	}
	return dir, log
}

// A decided commit survives a power loss: locally the new set and the follow-up are
// synced before the switch, the directory right after it, and again before Current
// goes; with the journal, the staged journal and the temporary directory before the
// journal's rename, the directory right after it, and the copies before the journal
// goes.
func TestCommitSyncsWhatItsDecisionNeeds(t *testing.T) {
	t.Run("local", func(t *testing.T) {
		_, log := recordCommit(t, "dedup")
		switched := slices.IndexFunc(log, func(e event) bool { return e.current == "new" })
		require.Greater(t, switched, 0)
		assert.Equal(t, ".", log[switched].what, "the first thing after the switch syncs the directory")
		for _, want := range []string{"kept/part-0", "kept/part-1", "removed.jsonl", "report.html", "stats.json"} {
			i := slices.IndexFunc(log, func(e event) bool { return strings.HasSuffix(e.what, "/new/"+want) })
			assert.True(t, i >= 0 && i < switched, "%s synced before the switch", want)
		}
		i := slices.IndexFunc(log, func(e event) bool { return strings.HasSuffix(e.what, FollowUpName) })
		assert.True(t, i >= 0 && i < switched, "the follow-up synced before the switch")
		gone := slices.IndexFunc(log[switched:], func(e event) bool { return e.current == "" }) + switched
		require.Greater(t, gone, switched)
		assert.Equal(t, ".", log[gone-2].what, "the directory synced before Current is removed")
		assert.Equal(t, ".", log[gone].what, "and after")
	})
	t.Run("journal", func(t *testing.T) {
		localSwitch = false
		defer func() { localSwitch = true }()
		_, log := recordCommit(t, "dedup")
		decided := slices.IndexFunc(log, func(e event) bool { return e.journal })
		require.Greater(t, decided, 0)
		assert.Equal(t, ".", log[decided].what, "the first thing after the journal's rename syncs the directory")
		for _, want := range []string{"commit.json", FollowUpName, "kept/part-0", "stats.json"} {
			i := slices.IndexFunc(log, func(e event) bool {
				return strings.HasSuffix(e.what, "/"+want) && strings.HasPrefix(e.what, ".neardup-tmp-")
			})
			assert.True(t, i >= 0 && i < decided, "%s synced before the journal's rename", want)
		}
		for _, want := range []string{"kept/part-0", "kept/part-1", "removed.jsonl", "stats.json"} {
			i := slices.IndexFunc(log, func(e event) bool { return e.what == want })
			assert.True(t, i > decided && log[i].journal, "the copy %s synced before the journal goes", want)
		}
	})
}
