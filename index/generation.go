package index

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/neardup/neardup/io/files"
)

// DefaultShards is the shard count of a new index: enough that one shard (rewritten
// whole when a document lands in it) stays a small part of a large index.
const DefaultShards = 64

// New returns the manifest of an empty index (generation 0, never committed).
func New(p Params, shards int) *Manifest {
	return &Manifest{Format: Format, FormatVersion: FormatVersion, Params: p, Shards: shards, Files: []FileEntry{}}
}

// GenerationDir names a fresh directory, relative to the index, for the files of the
// generation after m's. The random suffix keeps two concurrent updates apart; only the
// one that commits first wins (see Commit).
func (m *Manifest) GenerationDir() string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return fmt.Sprintf("gen-%06d-%s", m.Generation+1, hex.EncodeToString(b[:]))
}

// Next returns the manifest of the generation after m: shards written in this generation
// (entries) replace their old files, the others keep theirs.
func (m *Manifest) Next(entries []FileEntry) *Manifest {
	n := *m
	n.Generation = m.Generation + 1
	byShard := map[int]FileEntry{}
	for _, f := range m.Files {
		byShard[f.Shard] = f
	}
	for _, f := range entries {
		byShard[f.Shard] = f
	}
	n.Files = make([]FileEntry, 0, len(byShard))
	n.Documents, n.Shingles = 0, 0
	for _, f := range byShard {
		if f.Rows == 0 {
			continue
		}
		n.Files = append(n.Files, f)
		n.Documents += f.Rows
		n.Shingles += f.Shingles
	}
	slices.SortFunc(n.Files, func(a, b FileEntry) int { return cmp.Compare(a.Shard, b.Shard) })
	n.retire(m)
	return &n
}

// FileOfShard is shard k's entry, if the shard has documents.
func (m *Manifest) FileOfShard(k int) (FileEntry, bool) {
	i, ok := slices.BinarySearchFunc(m.Files, k, func(f FileEntry, k int) int { return cmp.Compare(f.Shard, k) })
	if !ok {
		return FileEntry{}, false
	}
	return m.Files[i], true
}

// Encode renders the manifest as manifest.json holds it.
func (m *Manifest) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Commit makes next the index's current generation. prev is the manifest next was made
// from (generation 0: a new index). It fails, changing nothing, when the index is no
// longer at prev's generation (another update committed meanwhile). The manifest is
// written under a temporary name, synced, and renamed over manifest.json: readers see
// the whole old or the whole new manifest. Then collect deletes what prev retired and
// the files of interrupted runs. All of it holds the index's commit lock, so commits
// never interleave.
func Commit(ctx context.Context, dir string, prev, next *Manifest) error {
	return locked(ctx, dir, func() error { return commit(ctx, dir, prev, next) })
}

// locked runs fn holding the index's commit lock (lockName).
func locked(ctx context.Context, dir string, fn func() error) error {
	if err := CheckDir(dir); err != nil {
		return err
	}
	l, err := lockIndex(ctx, dir)
	if err != nil {
		return err
	}
	return errors.Join(fn(), l.Release(ctx))
}

func commit(ctx context.Context, dir string, prev, next *Manifest) error {
	cur, err := ReadManifest(ctx, dir)
	switch {
	case prev.Generation == 0 && err == nil:
		return fmt.Errorf("index %s: already exists (generation %d); update it with dedup --update-index", dir, cur.Generation)
	case prev.Generation > 0 && err != nil:
		return err
	case prev.Generation > 0 && cur.Generation != prev.Generation:
		return fmt.Errorf("index %s: changed during the run (generation %d, this run started from %d); nothing was committed, rerun", dir, cur.Generation, prev.Generation)
	}
	if err := next.CheckPaths(dir); err != nil {
		return err
	}
	b, err := next.Encode()
	if err != nil {
		return fmt.Errorf("index %s: encode manifest: %w", dir, err)
	}
	tmp := files.Join(dir, fmt.Sprintf(".%s.tmp-%d", ManifestName, next.Generation))
	if err := writeSynced(ctx, tmp, b); err != nil {
		return fmt.Errorf("index %s: write manifest: %w", dir, err)
	}
	fsOp("rename", tmp)
	if err := files.Rename(ctx, tmp, files.Join(dir, ManifestName)); err != nil {
		return fmt.Errorf("index %s: commit manifest: %w", dir, err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("index %s: commit manifest: %w", dir, err)
	}
	return collect(ctx, dir, prev, next)
}

// CommitOnce is Commit for a commit that may be run again after a kill: an index whose
// manifest is next already is only collected.
func CommitOnce(ctx context.Context, dir string, prev, next *Manifest) error {
	return locked(ctx, dir, func() error {
		if cur, err := ReadManifest(ctx, dir); err == nil && cur.Generation == next.Generation {
			a, aerr := cur.Encode()
			b, berr := next.Encode()
			if aerr == nil && berr == nil && bytes.Equal(a, b) {
				return collect(ctx, dir, prev, next)
			}
		}
		return commit(ctx, dir, prev, next)
	})
}

// retire sets n.Retired to the files prev names that n does not.
func (n *Manifest) retire(prev *Manifest) {
	kept := map[string]bool{}
	for _, p := range n.paths() {
		kept[p] = true
	}
	n.Retired = nil
	for _, p := range prev.paths() {
		if !kept[p] {
			n.Retired = append(n.Retired, p)
		}
	}
}

// paths are the files m names for reading.
func (m *Manifest) paths() []string {
	var out []string
	for _, f := range m.Files {
		out = append(out, f.Path)
	}
	for _, s := range m.Segments {
		out = append(out, s.Path)
	}
	return out
}

// collect deletes the files prev retired (those of prev's predecessor that prev does
// not use: no reader can still be using them once next is committed), then the files
// of runs that wrote a generation up to next's and lost or died (removeOrphans), then
// generation directories so emptied. It deletes nothing else, and nothing reached
// through a symlink (CheckPath).
func collect(ctx context.Context, dir string, prev, next *Manifest) error {
	used := map[string]bool{}
	for _, p := range next.paths() {
		used[p] = true
	}
	for _, rel := range prev.Retired {
		if used[rel] {
			continue
		}
		if err := CheckPath(dir, rel); err != nil {
			return fmt.Errorf("index %s: old generation file %s not deleted: %w", dir, quoteCapped(rel), err)
		}
		fsOp("remove", rel)
		if err := files.Remove(ctx, files.Join(dir, rel)); err != nil && !notExist(err) {
			return fmt.Errorf("index %s: delete old generation file: %w", dir, err)
		}
	}
	return removeOrphans(ctx, dir, prev, next)
}

// generationOf parses "gen-000002-xxxx/..." into 2; unknown names count as new (kept).
func generationOf(rel string) int {
	d, _, _ := strings.Cut(rel, "/")
	d = path.Base(d)
	num, _, _ := strings.Cut(strings.TrimPrefix(d, "gen-"), "-")
	g, err := strconv.Atoi(num)
	if err != nil || !strings.HasPrefix(d, "gen-") {
		return 1 << 30
	}
	return g
}
