package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/neardup/neardup/internal/interrupt"
	"github.com/neardup/neardup/io/files"
)

// A local file of a generation is written under its name plus partialSuffix, synced,
// and renamed to its name before the manifest naming it is committed: a name without
// the suffix is whole (on object stores an object is whole once it appears). The partial files of a run that was killed are deleted by the next
// commit of a generation at least as new (removeOrphans), and a SIGINT or SIGTERM
// deletes the one being written.
const partialSuffix = ".partial"

// onFsOp, when set (by this package's tests), is told each operation that makes a
// commit durable or deletes a file, in order: "write", "sync", "rename", "syncdir",
// "remove", with the path it acts on.
var onFsOp func(op, path string)

func fsOp(op, p string) {
	if onFsOp != nil {
		onFsOp(op, p)
	}
}

// writeSynced writes b to p and, on a local filesystem, syncs it to disk before
// returning (object stores keep what a finished write wrote).
func writeSynced(ctx context.Context, p string, b []byte) error {
	fsOp("write", p)
	if !files.IsLocal(p) {
		return files.WriteBytes(ctx, p, b)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		fsOp("sync", p)
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// syncFile syncs a written local file to disk.
func syncFile(p string) error { return syncLocal("sync", p) }

// syncDir syncs a local directory, making the renames and deletions in it durable.
func syncDir(dir string) error { return syncLocal("syncdir", dir) }

func syncLocal(op, p string) error {
	if !files.IsLocal(p) {
		return nil
	}
	fsOp(op, p)
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

func notExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// createPartial starts writing dir/rel under its partial name. The returned finish
// closes it and, when the write succeeded (werr nil), syncs it and renames it to rel;
// otherwise it deletes it. Until finish, a SIGINT or SIGTERM deletes it too.
func createPartial(ctx context.Context, dir, rel string) (io.Writer, func(werr error) error, error) {
	if err := CheckPath(dir, rel); err != nil {
		return nil, nil, fmt.Errorf("index %s: %s: %w", dir, quoteCapped(rel), err)
	}
	final := files.Join(dir, rel)
	part := final
	if files.IsLocal(final) {
		part += partialSuffix // an object appears only once its write is finished
	}
	unregister := interrupt.Register(func() string {
		files.Remove(context.Background(), part)
		if files.IsLocal(part) {
			os.Remove(filepath.Dir(part)) // the generation directory, when it holds nothing else
		}
		return "removed the partial index file " + part
	})
	out, err := files.Create(ctx, part)
	if err != nil {
		unregister()
		return nil, nil, err
	}
	finish := func(werr error) error {
		defer unregister()
		cerr := out.Close()
		if werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = syncFile(part)
		}
		if werr == nil && part != final {
			fsOp("rename", part)
			werr = files.Rename(ctx, part, final)
		}
		if werr == nil {
			werr = syncDir(filepath.Dir(final))
		}
		if werr != nil {
			files.Remove(ctx, part)
			return fmt.Errorf("write %s: %w", final, werr)
		}
		return nil
	}
	return out, finish, nil
}
