package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/spill"
	"github.com/neardup/neardup/internal/spilldir"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// TestRunTheDiskCannotHoldFailsBeforeThePipeline: a real corpus whose estimate, scaled
// up, exceeds what statfs reports free fails with a UsageError (exit 2) naming the spill
// directory and the bytes, before anything is read or written; unscaled, the same run
// passes the same check.
func TestRunTheDiskCannotHoldFailsBeforeThePipeline(t *testing.T) {
	corpus := genCorpus(t, 300, 3)
	parent := t.TempDir()
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.SpillDir = []string{corpus}, t.TempDir(), parent
	diskEstimateScale = 1e9
	t.Cleanup(func() { diskEstimateScale = 1 })
	read0 := elem.Progress.Read.Load()
	_, err := Run(context.Background(), cfg, nil)
	var usage UsageError
	require.True(t, errors.As(err, &usage), "want a UsageError, got %v", err)
	assert.Contains(t, err.Error(), "not enough disk space")
	assert.Contains(t, err.Error(), parent)
	assert.Regexp(t, `\(\d{12,} bytes\)`, err.Error())
	assert.Equal(t, read0, elem.Progress.Read.Load(), "documents were read before the check")
	entries, _ := os.ReadDir(parent)
	assert.Empty(t, entries, "the refused run left its spill directory")
	_, err = os.Stat(filepath.Join(cfg.Output, "kept.jsonl"))
	assert.True(t, os.IsNotExist(err), "the refused run wrote kept.jsonl")

	diskEstimateScale = 1
	_, st := dedup(t, cfg)
	assert.Positive(t, st.Counts["kept"])
}

// TestCheckDiskReadsStatfs: checkDisk compares with the real free space of the
// directory's file system: a need of one byte passes, one past the free space fails;
// two needs on one file system add up when they are there at once, and do not when the
// first (spill released while the stages run) is gone before the second (the outputs).
func TestCheckDiskReadsStatfs(t *testing.T) {
	dir := t.TempDir()
	free, err := spilldir.Free(dir)
	require.NoError(t, err)
	spill := func(n int64) diskNeed { return diskNeed{dir, n, "spill files", true, false} }
	outputs := func(n int64) diskNeed {
		return diskNeed{filepath.Join(dir, "not-yet", "made"), n, "outputs", false, true}
	}
	require.NoError(t, checkDisk([]diskNeed{spill(1)}))
	err = checkDisk([]diskNeed{spill(int64(free) + 1<<30)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), dir)
	half := int64(free/2) + 1<<29
	require.NoError(t, checkDisk([]diskNeed{spill(half)}))
	require.NoError(t, checkDisk([]diskNeed{spill(half), outputs(half)}),
		"spill released before the outputs are written must not add to them")
	held := spill(half)
	held.atEnd = true
	err = checkDisk([]diskNeed{held, outputs(half)})
	require.Error(t, err, "two needs on one file system at once must add up")
	assert.Contains(t, err.Error(), "outputs in "+dir)
}

// TestSpillDirHoldsTheSpillAndKilledRunsAreSwept: with --spill-dir the spill files go to
// a directory of the run's under it, which is gone when the run ends; a directory a
// killed run left (its owner lock free) is removed first, a live run's is left alone;
// stats.json reports the bytes spilled and the peak RSS.
func TestSpillDirHoldsTheSpillAndKilledRunsAreSwept(t *testing.T) {
	corpus := genCorpus(t, 400, 4)
	parent := t.TempDir()
	dead := filepath.Join(parent, spilldir.Prefix+"killed")
	require.NoError(t, os.MkdirAll(dead, 0o777))
	require.NoError(t, os.WriteFile(filepath.Join(dead, ".owner"), []byte("pid 1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dead, "spill-0"), make([]byte, 4096), 0o644))
	live, err := spilldir.Make(parent)
	require.NoError(t, err)
	defer live.Release()

	var mu sync.Mutex
	var spilled []string
	elem.SpilledHook = func(_, ref string) {
		mu.Lock()
		spilled = append(spilled, spill.File(ref))
		mu.Unlock()
	}
	t.Cleanup(func() { elem.SpilledHook = nil })
	var warnings strings.Builder
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.SpillDir, cfg.Warnings = []string{corpus}, t.TempDir(), parent, &warnings
	_, st := dedup(t, cfg)

	require.NotEmpty(t, spilled)
	for _, p := range spilled {
		rel, err := filepath.Rel(parent, p)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(rel, spilldir.Prefix) && !strings.HasPrefix(rel, filepath.Base(live.Path)),
			"spill file %s not in a directory of the run's under --spill-dir", p)
	}
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	require.Len(t, entries, 1, "left under --spill-dir: %v", entries)
	assert.Equal(t, filepath.Base(live.Path), entries[0].Name(), "the live run's directory must stay")
	assert.Contains(t, warnings.String(), dead)
	assert.Positive(t, st.Resources.SpilledBytes)
	assert.Greater(t, st.Resources.PeakRSSBytes, int64(10<<20))
}
