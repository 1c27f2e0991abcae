package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/neardup/neardup/index/segment"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// addSegment commits a segment of n documents named prefix… after prev; each document's
// band keys are its own, so none is a candidate of another.
func addSegment(t *testing.T, dir string, prev *Manifest, prefix string, n int) *Manifest {
	t.Helper()
	m, err := AddSegment(context.Background(), dir, prev, func(b *segment.Builder) (int64, error) {
		keys := make([]uint64, prev.Params.Bands)
		var shingles int64
		for i := range n {
			id := fmt.Sprintf("%s%05d", prefix, i)
			h := []uint64{uint64(len(prefix))<<40 | uint64(i)<<8, uint64(len(prefix))<<40 | uint64(i)<<8 | 1}
			for band := range keys {
				keys[band] = h[0] + uint64(band)
			}
			if err := b.Add(id, h, keys); err != nil {
				return 0, err
			}
			shingles += int64(len(h))
		}
		return shingles, nil
	})
	require.NoError(t, err)
	return m
}

// outsideTree makes a directory beside the index holding files with the names the
// index's files have, and returns it and a function listing what survives in it.
func outsideTree(t *testing.T, root string, names ...string) (string, func() []string) {
	t.Helper()
	out := filepath.Join(root, "outside")
	os.MkdirAll(out, 0o755)
	for _, n := range names {
		require.NoError(t, os.WriteFile(filepath.Join(out, n), []byte("precious "+n), 0o644))
	}
	return out, func() []string {
		es, _ := os.ReadDir(out)
		var got []string
		for _, e := range es {
			got = append(got, e.Name())
		}
		return got
	}
}

// moveOut moves p out of the index to outside and leaves a symlink to it in its place;
// it returns dir.
func moveOut(t *testing.T, p, outside, dir string) string {
	t.Helper()
	require.NoError(t, os.Rename(p, outside))
	require.NoError(t, os.Symlink(outside, p))
	return dir
}

// A symlink anywhere in a format 2 index (a generation directory, a segment, the
// manifest, the index directory itself) is refused by every reader with an error
// naming it; a file outside the index is never opened, reported on or deleted.
func TestSymlinkInSegmentIndexRefusedForReading(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, root, dir string, m *Manifest) (readDir string)
		why   string
	}{
		{"generation", func(t *testing.T, root, dir string, m *Manifest) string {
			return moveOut(t, filepath.Join(dir, filepath.Dir(m.Segments[0].Path)), filepath.Join(root, "copy"), dir)
		}, "is a symlink; neardup follows no symlink inside an index"},
		{"segment", func(t *testing.T, root, dir string, m *Manifest) string {
			return moveOut(t, filepath.Join(dir, m.Segments[0].Path), filepath.Join(root, "copy.nds"), dir)
		}, "is a symlink; neardup follows no symlink inside an index"},
		{"manifest", func(t *testing.T, root, dir string, m *Manifest) string {
			return moveOut(t, filepath.Join(dir, ManifestName), filepath.Join(root, "copy.json"), dir)
		}, `"manifest.json" is a symlink`},
		{"root", func(t *testing.T, root, dir string, m *Manifest) string {
			alias := filepath.Join(root, "alias")
			require.NoError(t, os.Symlink(dir, alias))
			return alias
		}, "is a symlink (to " + `"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "idx")
			m := addSegment(t, dir, NewSegmented(testParams, 32), "a", 50)
			_, err := OpenSegments(ctx, dir, testParams)
			require.NoError(t, err)
			readDir := c.plant(t, root, dir, m)
			for what, read := range map[string]func() error{
				"ReadManifest": func() error { _, err := ReadManifest(ctx, readDir); return err },
				"OpenSegments": func() error {
					s, err := OpenSegments(ctx, readDir, testParams)
					if err == nil {
						s.Close()
					}
					return err
				},
				"Commit": func() error { _, err := CommitSegment(ctx, readDir, m, m.Segments[0]); return err },
			} {
				assert.ErrorContains(t, read(), c.why, what)
			}
		})
	}
}

// Deletion at commit touches only files a manifest names, never through a symlink: a
// symlinked generation directory (as old as any), whose target holds files named as
// the index's files and partial files, keeps them all through commits.
func TestSymlinkInIndexNeverDeletesOutside(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "idx")
	m := addSegment(t, dir, NewSegmented(testParams, 32), "a", 40)
	outside, survivors := outsideTree(t, root, "segment-00000.nds", "merged-segment-00000.nds",
		"segment-00000.nds"+partialSuffix, "passwd")
	for _, name := range []string{"gen-000000-00000000", "gen-000001-00000000"} {
		require.NoError(t, os.Symlink(outside, filepath.Join(dir, name)))
	}
	// Three more generations, each merging (retiring) the one before.
	for i, p := range []string{"b", "c", "d"} {
		m = addSegment(t, dir, m, p, 40+i)
	}
	require.Len(t, survivors(), 4, "files outside the index deleted")
	// A retired path that leads through a symlink is refused, not deleted through.
	hostile := *m
	hostile.Retired = []string{"gen-000001-00000000/passwd"}
	require.ErrorContains(t, Commit(context.Background(), dir, &hostile, m.WithSegments(0, 0)), "is a symlink",
		"commit after a manifest retiring a path through a symlink")
	require.Len(t, survivors(), 4, "files outside the index deleted")
}

// A commit deletes no file the previous generation or the new one names (readers of the
// previous one may still be reading it), and deletes what the one before named.
func TestCommitKeepsPreviousGenerationFiles(t *testing.T) {
	check := func(t *testing.T, dir string, prev, next *Manifest, before []string) {
		t.Helper()
		for _, m := range []*Manifest{prev, next} {
			for _, p := range m.paths() {
				_, err := os.Stat(filepath.Join(dir, p))
				assert.NoError(t, err, "generation %d: file %s gone after committing generation %d", m.Generation, p, next.Generation)
			}
		}
		for _, p := range before {
			if !slices.Contains(prev.paths(), p) && !slices.Contains(next.paths(), p) {
				_, err := os.Stat(filepath.Join(dir, p))
				assert.Error(t, err, "file %s of generation %d left after committing generation %d", p, prev.Generation-1, next.Generation)
			}
		}
	}
	t.Run("segments", func(t *testing.T) {
		dir := t.TempDir()
		var before []string
		prev := addSegment(t, dir, NewSegmented(testParams, 32), "a", 10)
		for i, p := range []string{"b", "c", "d", "e"} {
			next := addSegment(t, dir, prev, p, 10+i)
			check(t, dir, prev, next, before)
			before, prev = prev.paths(), next
		}
	})
	t.Run("shards", func(t *testing.T) {
		dir := t.TempDir()
		var before []string
		prev := build(t, dir, New(testParams, 4), testRows(100, "a"))
		for _, p := range []string{"b", "c", "d"} {
			next := build(t, dir, prev, testRows(30, p))
			check(t, dir, prev, next, before)
			before, prev = prev.paths(), next
		}
	})
}
