package index

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/neardup/neardup/index/segment"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// interruptedRun leaves in dir what a run killed after writing its files and before
// committing its manifest leaves: a whole segment and a partial merged one in the
// generation after m's. It returns their paths.
func interruptedRun(t *testing.T, dir string, m *Manifest) []string {
	t.Helper()
	gen := m.GenerationDir()
	e, err := WriteSegment(context.Background(), dir, gen+"/"+SegmentName(0), m, func(b *segment.Builder) (int64, error) {
		keys := make([]uint64, m.Params.Bands)
		for i := range 20 {
			for band := range keys {
				keys[band] = uint64(9000+i)<<20 | uint64(band)
			}
			if err := b.Add(fmt.Sprintf("killed%03d", i), []uint64{uint64(9000+i) << 40}, keys); err != nil {
				return 0, err
			}
		}
		return 20, nil
	})
	require.NoError(t, err)
	partial := gen + "/merged-" + SegmentName(0) + partialSuffix
	require.NoError(t, os.WriteFile(filepath.Join(dir, partial), make([]byte, 1000), 0o644))
	return []string{partial, e.Path} // sorted
}

// The files a killed run wrote and no manifest names are reported by Orphans (index
// --info) without being deleted, and removed by the next commit, which says so; every
// file the new and the previous manifest name survives, and so do a symlink in a
// generation directory, a symlinked generation directory, the files they lead to, and
// files not named as the index names its own.
func TestCommitRemovesFilesOfInterruptedRun(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "idx")
	m := addSegment(t, dir, NewSegmented(testParams, 32), "a", 200)
	m = addSegment(t, dir, m, "b", 10) // 200 > 4*10: two segments, nothing retired yet
	killed := interruptedRun(t, dir, m)

	outside, survivors := outsideTree(t, root, "segment-00000.nds", "shard-00000.parquet")
	gen := filepath.Dir(filepath.Join(dir, killed[0]))
	foreign := []string{filepath.Join(gen, "notes.txt"), filepath.Join(gen, "segment-1.nds"), filepath.Join(dir, "README")}
	for _, p := range foreign {
		require.NoError(t, os.WriteFile(p, []byte("mine"), 0o644))
	}
	require.NoError(t, os.Symlink(filepath.Join(outside, "segment-00000.nds"), filepath.Join(gen, SegmentName(1))))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "gen-000001-00000000")))

	var bytes int64
	for _, p := range killed {
		st, err := os.Stat(filepath.Join(dir, p))
		require.NoError(t, err)
		bytes += st.Size()
	}
	orphans, err := Orphans(ctx, dir, m, math.MaxInt)
	require.NoError(t, err)
	var listed []string
	for _, o := range orphans {
		listed = append(listed, o.Path)
	}
	slices.Sort(listed)
	require.Equal(t, killed, listed, "files of the interrupted run reported")
	require.Equal(t, bytes, OrphanBytes(orphans))
	for _, p := range killed {
		require.FileExists(t, filepath.Join(dir, p), "reporting deleted a file")
	}

	var notes []string
	defer func(n func(string)) { Notify = n }(Notify)
	Notify = func(msg string) { notes = append(notes, msg) }
	next := addSegment(t, dir, m, "c", 10)
	for _, p := range killed {
		assert.NoFileExists(t, filepath.Join(dir, p), "file of the interrupted run left after the next commit")
	}
	require.Equal(t, []string{fmt.Sprintf("index %s: removed 2 files of an interrupted run: %d bytes", dir, bytes)}, notes)
	for _, mm := range []*Manifest{m, next} {
		for _, p := range mm.paths() {
			assert.FileExists(t, filepath.Join(dir, p), "generation %d's file", mm.Generation)
		}
	}
	for _, p := range foreign {
		assert.FileExists(t, p, "a file not named as the index's own")
	}
	_, err = os.Lstat(filepath.Join(gen, SegmentName(1)))
	assert.NoError(t, err, "a symlink in a generation directory")
	assert.Len(t, survivors(), 2, "files outside the index")
	orphans, err = Orphans(ctx, dir, next, math.MaxInt)
	require.NoError(t, err)
	assert.Empty(t, orphans, "after the commit")
}
