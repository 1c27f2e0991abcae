package commit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/neardup/neardup/io/files"
)

// A commit is durable once it returns, and a decided one survives a power loss: the
// files of the new set, the follow-up and the journal are synced before the step that
// decides the commit (Current's rename, the journal's), the directory after it, and
// again before anything the recovery needs is removed. Object stores keep what a
// finished write wrote, so there these are no-ops.

// onSync, when set (by this package's tests), is told each sync, in order, with the
// path it syncs ("file" or "dir").
var onSync func(kind, path string)

// syncPath syncs a local file or directory.
func syncPath(kind, p string) error {
	if !files.IsLocal(p) {
		return nil
	}
	if onSync != nil {
		onSync(kind, p)
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// syncTree syncs the local file or directory tree at p: every file, then every
// directory, the deepest first.
func syncTree(p string) error {
	if !files.IsLocal(p) {
		return nil
	}
	var dirs []string
	err := filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			dirs = append(dirs, q)
			return nil
		case d.Type().IsRegular():
			return syncPath("file", q)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := syncPath("dir", dirs[i]); err != nil {
			return err
		}
	}
	return nil
}

// syncIfExists syncs the local file p when it exists.
func syncIfExists(p string) error {
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return syncPath("file", p)
}
