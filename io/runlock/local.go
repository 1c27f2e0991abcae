package runlock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

type localLock struct {
	path string
	f    *os.File
}

// acquireLocal opens (creating) the lock file and takes flock(2) on it without waiting.
// A file left by a run that died still holds that run's description: it is reported as
// stale and overwritten. The path is re-checked after locking: a holder that released
// (removed) the file between our open and our flock leaves us locking an unlinked file.
func acquireLocal(path string, me Holder) (*localLock, *Holder, error) {
	for attempt := 0; attempt < 10; attempt++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("create lock %s: %w", path, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			b, _ := io.ReadAll(f)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				h, _ := decode(b)
				return nil, nil, &HeldError{Path: path, Holder: h}
			}
			return nil, nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !samePath(f, path) {
			f.Close()
			continue
		}
		b, err := io.ReadAll(f)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("read lock %s: %w", path, err)
		}
		var stale *Holder
		if h, ok := decode(b); ok {
			stale = &h
		}
		if err := rewrite(f, encode(me)); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("write lock %s: %w", path, err)
		}
		return &localLock{path: path, f: f}, stale, nil
	}
	return nil, nil, fmt.Errorf("lock %s: the file keeps being replaced", path)
}

func samePath(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

func rewrite(f *os.File, b []byte) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		return err
	}
	return f.Sync()
}

func (l *localLock) check(context.Context) error {
	if !samePath(l.f, l.path) {
		return errors.New("the lock file was removed or replaced")
	}
	return nil
}

// release removes the file while still holding the lock, then unlocks by closing.
func (l *localLock) release(context.Context) error {
	var err error
	if samePath(l.f, l.path) {
		err = os.Remove(l.path)
	}
	return errors.Join(err, l.f.Close())
}
