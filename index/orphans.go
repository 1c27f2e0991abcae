package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/runlock"
)

// An orphan is a file a run wrote into a generation directory and that no manifest
// names, because the run was killed (or lost to another) before its manifest was
// committed: a segment or shard file, whole or partial. A commit of generation g, under
// the index's commit lock, deletes the orphans of generations up to g (collect): any
// run that wrote one started from a generation before g and can no longer commit.
// Later generations may be a running update's, and are left alone.

// Orphan is one such file: its path relative to the index and its size.
type Orphan struct {
	Path  string
	Bytes int64
}

// generationDirName and indexFileName are the names neardup gives generation
// directories and the files in them (SegmentName, its merged- form, ShardName), with
// the partial suffix while written. Nothing else is ever taken for an orphan.
var (
	generationDirName = regexp.MustCompile(`^gen-[0-9]{6}-[0-9a-f]{8}$`)
	indexFileName     = regexp.MustCompile(`^((merged-)?segment-[0-9]{5}\.nds|shard-[0-9]{5}\.parquet)(\.partial)?$`)
)

// Orphans lists the orphans of generations up to upTo in the index at dir, given that
// m is its current manifest: files m names or retires (a reader of the generation
// before m may still use those) are not orphans. It follows no symlink: a generation
// directory or file that is one is never listed.
func Orphans(ctx context.Context, dir string, m *Manifest, upTo int) ([]Orphan, error) {
	named := map[string]bool{}
	for _, p := range append(m.paths(), m.Retired...) {
		named[p] = true
	}
	keep := func(rel string) bool {
		g, name, ok := strings.Cut(rel, "/")
		return ok && generationDirName.MatchString(g) && indexFileName.MatchString(name) &&
			generationOf(g) <= upTo && !named[rel]
	}
	var out []Orphan
	if !files.IsLocal(dir) {
		found, err := files.Expand(ctx, []string{files.Join(dir, "gen-*/*")})
		if err != nil {
			return nil, nil // none (Expand fails on no match)
		}
		for _, p := range found {
			rel := strings.TrimPrefix(strings.TrimPrefix(p, strings.TrimSuffix(dir, "/")), "/")
			if keep(rel) {
				out = append(out, Orphan{Path: rel, Bytes: objectSize(ctx, p)})
			}
		}
		return out, nil
	}
	gens, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", dir, err)
	}
	for _, g := range gens {
		if !g.IsDir() { // ReadDir does not follow symlinks: a symlink is not IsDir
			continue
		}
		entries, err := os.ReadDir(filepath.Join(dir, g.Name()))
		if err != nil {
			continue
		}
		for _, e := range entries {
			rel := path.Join(g.Name(), e.Name())
			if !e.Type().IsRegular() || !keep(rel) {
				continue
			}
			if st, err := e.Info(); err == nil {
				out = append(out, Orphan{Path: rel, Bytes: st.Size()})
			}
		}
	}
	return out, nil
}

func objectSize(ctx context.Context, p string) int64 {
	r, ok, err := files.OpenReaderAt(ctx, p)
	if !ok || err != nil {
		return 0
	}
	defer r.Close()
	return r.Size()
}

// OrphanBytes is the total size of orphans.
func OrphanBytes(orphans []Orphan) int64 {
	var n int64
	for _, o := range orphans {
		n += o.Bytes
	}
	return n
}

// Notify is told what a commit did beside committing (orphans removed); it prints on
// stderr unless replaced.
var Notify = func(msg string) { fmt.Fprintf(os.Stderr, "neardup: %s\n", msg) }

// removeOrphans deletes the orphans of generations up to next's once next is
// committed, then the generation directories up to next's left empty, and says what
// it removed. prev's files are kept (retired by next, deleted by the commit after).
func removeOrphans(ctx context.Context, dir string, prev, next *Manifest) error {
	orphans, err := Orphans(ctx, dir, next, next.Generation)
	if err != nil {
		return err
	}
	prevPaths := prev.paths()
	var removed []Orphan
	for _, o := range orphans {
		if slices.Contains(prevPaths, o.Path) || CheckPath(dir, o.Path) != nil {
			continue
		}
		fsOp("remove", o.Path)
		if err := files.Remove(ctx, files.Join(dir, o.Path)); err != nil && !notExist(err) {
			return fmt.Errorf("index %s: delete a file of an interrupted run: %w", dir, err)
		}
		removed = append(removed, o)
	}
	if files.IsLocal(dir) {
		gens, _ := os.ReadDir(dir)
		for _, g := range gens {
			if g.IsDir() && generationDirName.MatchString(g.Name()) && generationOf(g.Name()) <= next.Generation {
				os.Remove(filepath.Join(dir, g.Name())) // only when empty
			}
		}
	}
	if len(removed) > 0 {
		Notify(fmt.Sprintf("index %s: removed %d files of an interrupted run: %d bytes", dir, len(removed), OrphanBytes(removed)))
	}
	return nil
}

// lockName is the index's commit lock, held from the check of the current generation
// to the end of collect: commits are serialized, so a commit that deletes orphans
// knows no other run can still commit them.
const lockName = ".neardup-index-lock"

// lockWait bounds how long a commit waits for another to finish.
const lockWait = 30 * time.Second

func lockIndex(ctx context.Context, dir string) (*runlock.Lock, error) {
	deadline := time.Now().Add(lockWait)
	for {
		l, _, err := runlock.AcquireNamed(ctx, dir, lockName, runlock.Me(""))
		var held *runlock.HeldError
		if !errors.As(err, &held) || time.Now().After(deadline) {
			if err != nil {
				return nil, fmt.Errorf("index %s: commit lock: %w", dir, err)
			}
			return l, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}
