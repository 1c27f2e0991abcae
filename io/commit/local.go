package commit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// commitLocal publishes names from tmp into the local directory dir by one rename of the
// symlink Current. It returns done=false, having changed nothing in dir, when the
// filesystem has no symlinks or hard links (the caller then commits with the journal).
//
//  1. The older outputs are hard-linked into tmp/old (directories entry by entry), and
//     Current is made to point at tmp/old.
//  2. Each older output is replaced by a symlink to Current/NAME (same bytes, read
//     through old/), and each new name gets one too (dangling: absent, as it was).
//  3. The new outputs move into tmp/new; renaming a symlink to tmp/new over Current
//     publishes them all at once, and the older names that are not in names dangle.
//  4. Each symlink is replaced by its file (same bytes again), the dangling ones are
//     removed, then Current and tmp.
//
// A kill before step 3's rename leaves the older set readable, after it the new one;
// Recover finishes step 4 from wherever Current points.
func commitLocal(tmp, dir string, names, older []string) (done bool, err error) {
	var present []string
	for _, n := range slices.Concat(names, older) {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil && plainName(n) && !slices.Contains(present, n) {
			present = append(present, n)
		}
	}
	oldDir, newDir := filepath.Join(tmp, "old"), filepath.Join(tmp, "new")
	step()
	if err := os.Mkdir(oldDir, 0o777); err != nil {
		return false, fmt.Errorf("commit: %w", err)
	}
	for _, n := range present {
		if err := linkTree(filepath.Join(dir, n), filepath.Join(oldDir, n)); err != nil {
			os.RemoveAll(oldDir)
			return false, nil
		}
	}
	if err := pointCurrent(dir, tmp, oldDir); err != nil {
		os.RemoveAll(oldDir)
		return false, nil
	}
	for _, n := range present {
		if err := throughCurrent(dir, tmp, n, true); err != nil {
			return true, fmt.Errorf("commit %s: %w", n, err)
		}
	}
	for _, n := range names {
		if !slices.Contains(present, n) {
			if err := throughCurrent(dir, tmp, n, false); err != nil {
				return true, fmt.Errorf("commit %s: %w", n, err)
			}
		}
	}
	step()
	if err := os.Mkdir(newDir, 0o777); err != nil {
		return true, fmt.Errorf("commit: %w", err)
	}
	for _, n := range names {
		step()
		if err := os.Rename(filepath.Join(tmp, n), filepath.Join(newDir, n)); err != nil {
			return true, fmt.Errorf("commit %s: %w", n, err)
		}
	}
	// The new set and the follow-up are on disk before the switch decides the commit.
	if err := errors.Join(syncTree(newDir), syncIfExists(filepath.Join(tmp, FollowUpName))); err != nil {
		return true, fmt.Errorf("commit: %w", err)
	}
	if err := pointCurrent(dir, tmp, newDir); err != nil {
		return true, fmt.Errorf("commit: %w", err)
	}
	_, ferr := runFollowUp(context.Background(), tmp)
	if err := materialize(dir, newDir); err != nil {
		return true, fmt.Errorf("commit: %w", err)
	}
	step()
	if err := os.RemoveAll(tmp); err != nil {
		return true, withFollowUp(fmt.Errorf("commit: clean up: %w", err), ferr)
	}
	return true, ferr
}

// recoverLocal finishes the local commit Current belongs to: into the set it points at,
// running its follow-up first when that is the new set.
func recoverLocal(ctx context.Context, dir string) (string, error) {
	target, err := os.Readlink(filepath.Join(dir, Current))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("recover the interrupted commit in %s: %w", dir, err)
	}
	var what string
	var ferr error
	if filepath.Base(target) == "new" {
		what, ferr = runFollowUp(ctx, filepath.Join(dir, filepath.Dir(target)))
	}
	if err := materialize(dir, filepath.Join(dir, target)); err != nil {
		return "", fmt.Errorf("recover the interrupted commit in %s: %w", dir, err)
	}
	if filepath.Base(target) == "new" {
		return recovered("finished the commit of a run that was killed while committing: "+dir+" holds that run's outputs", what, ferr), nil
	}
	return "undid the commit of a run that was killed before its outputs were published: " + dir + " holds the outputs it held before", nil
}

// materialize replaces every symlink of dir into Current by the entry of from it reads
// (from is where Current points), removes those that dangle, then removes Current.
// Readers see the same bytes before and after each step.
func materialize(dir, from string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		n := e.Name()
		if e.Type()&fs.ModeSymlink == 0 || n == Current {
			continue
		}
		if t, err := os.Readlink(filepath.Join(dir, n)); err != nil || t != filepath.Join(Current, n) {
			continue
		}
		step()
		src := filepath.Join(from, n)
		if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			err = os.Remove(filepath.Join(dir, n))
			if err != nil {
				return err
			}
			continue
		}
		// Exchanging leaves the symlink in from, which goes with the temporary directory;
		// renaming a file over an existing name would make ext4 write it out at once.
		if err := exchange(src, filepath.Join(dir, n)); err != nil {
			if err := replaceLink(src, filepath.Join(dir, n)); err != nil {
				return err
			}
		}
	}
	// The plain files are in place on disk before Current, which recovery reads, goes.
	if err := syncPath("dir", dir); err != nil {
		return err
	}
	step()
	if err := os.Remove(filepath.Join(dir, Current)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return syncPath("dir", dir)
}

// replaceLink moves src to the place of the symlink at dst: in one rename for a file; a
// directory cannot replace a symlink, so the symlink is removed first.
func replaceLink(src, dst string) error {
	st, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if st.IsDir() {
		if err := os.Remove(dst); err != nil {
			return err
		}
	}
	return os.Rename(src, dst)
}

// pointCurrent makes dir's Current point at target (inside tmp) in one rename.
func pointCurrent(dir, tmp, target string) error {
	rel, err := filepath.Rel(dir, target)
	if err != nil {
		return err
	}
	link := filepath.Join(tmp, "current-link")
	step()
	if err := os.Symlink(rel, link); err != nil {
		return err
	}
	step()
	if err := os.Rename(link, filepath.Join(dir, Current)); err != nil {
		return err
	}
	return syncPath("dir", dir)
}

// throughCurrent makes dir/n a symlink to Current/n. When exists, dir/n is replaced
// (its bytes are the same through Current); a directory is exchanged with the symlink
// and left in tmp.
func throughCurrent(dir, tmp, n string, exists bool) error {
	link := filepath.Join(tmp, "link-"+n)
	step()
	if err := os.Symlink(filepath.Join(Current, n), link); err != nil {
		return err
	}
	dst := filepath.Join(dir, n)
	step()
	if !exists {
		return os.Rename(link, dst)
	}
	st, err := os.Lstat(dst)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return os.Rename(link, dst)
	}
	if err := exchange(link, dst); err == nil {
		return nil
	}
	// Without an atomic exchange the directory is absent for the time of two renames.
	if err := os.Rename(dst, filepath.Join(tmp, "aside-"+n)); err != nil {
		return err
	}
	return os.Rename(link, dst)
}

// linkTree hard-links the file at src to dst, or recreates the directory at src at dst
// with every file in it hard-linked.
func linkTree(src, dst string) error {
	st, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		step()
		return os.Link(src, dst)
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		step()
		if d.IsDir() {
			return os.Mkdir(filepath.Join(dst, rel), 0o777)
		}
		return os.Link(p, filepath.Join(dst, rel))
	})
}
