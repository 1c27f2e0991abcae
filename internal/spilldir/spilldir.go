// Package spilldir gives a run a directory of its own for spill files under a parent
// directory that other runs may share, and removes the directories of runs that are
// gone. A run holds an flock(2) on a file in its directory for as long as it lives: the
// kernel drops the lock when the process dies, kill -9 included, so a later run tells an
// abandoned directory from a live run's without guessing from process ids, which the
// system reuses.
package spilldir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Prefix starts the name of every run's directory under the parent.
const Prefix = "neardup-spill-"

// ownerFile is the file in a run's directory whose lock says the run is alive.
const ownerFile = ".owner"

// Dir is a run's spill directory, held until Release.
type Dir struct {
	Path  string
	owner *os.File
}

// Make creates parent (if needed) and a new directory of this run's in it, locked.
func Make(parent string) (*Dir, error) {
	if err := os.MkdirAll(parent, 0o777); err != nil {
		return nil, err
	}
	path, err := os.MkdirTemp(parent, Prefix)
	if err != nil {
		return nil, err
	}
	// The owner file is locked under another name and then renamed, so that Sweep never
	// sees it unlocked while this run lives.
	f, err := os.OpenFile(filepath.Join(path, ownerFile+".new"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			fmt.Fprintf(f, "pid %d\n", os.Getpid())
			err = os.Rename(f.Name(), filepath.Join(path, ownerFile))
		}
		if err == nil {
			return &Dir{Path: path, owner: f}, nil
		}
		f.Close()
	}
	os.RemoveAll(path)
	return nil, fmt.Errorf("lock %s: %w", path, err)
}

// Release removes the directory and everything in it.
func (d *Dir) Release() error {
	err := os.RemoveAll(d.Path)
	d.owner.Close()
	return err
}

// Sweep removes the directories under parent that runs left behind: those whose owner
// file nobody holds a lock on. A directory being created (no owner file yet) or whose
// lock is held is left alone. It returns the directories removed.
func Sweep(parent string) ([]string, error) {
	entries, err := os.ReadDir(parent)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), Prefix) {
			continue
		}
		path := filepath.Join(parent, e.Name())
		if !abandoned(path) {
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, path)
	}
	return removed, errors.Join(errs...)
}

// abandoned reports whether the run that made path is gone: its owner file exists and
// its lock can be taken. The lock taken is kept until the directory is removed, so a
// run cannot start using it in between (none would: names are never reused).
func abandoned(path string) bool {
	f, err := os.Open(filepath.Join(path, ownerFile))
	if err != nil {
		return false
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// Free is the space available to an unprivileged writer on dir's file system, in bytes.
func Free(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}
