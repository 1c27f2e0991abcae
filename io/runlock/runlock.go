// Package runlock gives one dedup run at a time an output directory. The lock is a small
// JSON object at DIR/.neardup-lock naming its holder (pid, host, start time), taken before
// the pipeline starts and checked again before the outputs are committed, so a second run
// into the same directory fails at once, naming the run it would have clobbered.
//
// Local directories use a lock file held with flock(2): the kernel releases it when the
// holder dies, so the lock of a killed run is taken over (with a warning naming the dead
// run) without guessing from pids. On gs://, which has no locks, the lock is an object
// created with a does-not-exist precondition; a lock whose holder ran on this host under a
// pid that no longer exists is stale and replaced with a generation precondition, so two
// runs can never both take it over. On s3:// the object is created with S3's conditional
// write (If-None-Match: *); a stale one is replaced with a write conditional on the
// ETag read (If-Match), so again only one of the runs racing for it succeeds.
package runlock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/neardup/neardup/io/files"
)

// Name is the lock's file (object) name inside the output directory.
const Name = ".neardup-lock"

// Holder says which run holds a lock.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	// TempDir is the holder's temporary directory, so that a later run knows which
	// directory is in use.
	TempDir string `json:"temp_dir,omitempty"`
}

func (h Holder) String() string {
	return fmt.Sprintf("pid %d on host %s, started %s", h.PID, h.Host, h.Started.UTC().Format(time.RFC3339))
}

// Me describes the calling process as a holder.
func Me(tempDir string) Holder {
	host, _ := os.Hostname()
	return Holder{PID: os.Getpid(), Host: host, Started: time.Now().UTC().Truncate(time.Second), TempDir: tempDir}
}

// HeldError is returned by Acquire when a live run holds the lock.
type HeldError struct {
	Path   string
	Holder Holder
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("another neardup run is writing to this directory (%s; lock %s): wait for it to finish or give another --output; "+
		"if that run is gone, remove %s", e.Holder, e.Path, e.Path)
}

// Lock is a held lock.
type Lock struct {
	Path   string
	Holder Holder
	impl   interface {
		check(ctx context.Context) error
		release(ctx context.Context) error
	}
}

// Acquire takes the lock of dir (which must exist) for me. When it takes over the lock of
// a run that is no longer running, stale describes that run.
func Acquire(ctx context.Context, dir string, me Holder) (l *Lock, stale *Holder, err error) {
	return AcquireNamed(ctx, dir, Name, me)
}

// AcquireNamed is Acquire of the lock file name in dir, for a lock other than the run's
// (an index's commit lock).
func AcquireNamed(ctx context.Context, dir, name string, me Holder) (l *Lock, stale *Holder, err error) {
	path := files.Join(dir, name)
	l = &Lock{Path: path, Holder: me}
	switch {
	case files.IsLocal(dir):
		l.impl, stale, err = acquireLocal(path, me)
	case strings.HasPrefix(dir, "s3://"):
		l.impl, stale, err = acquireS3(ctx, path, me)
	default:
		l.impl, stale, err = acquireGCS(ctx, path, me)
	}
	if err != nil {
		return nil, nil, err
	}
	return l, stale, nil
}

// Check verifies that the lock is still this run's: nobody removed or replaced it.
func (l *Lock) Check(ctx context.Context) error {
	if err := l.impl.check(ctx); err != nil {
		return fmt.Errorf("lock %s is no longer this run's: %w", l.Path, err)
	}
	return nil
}

// Release removes the lock.
func (l *Lock) Release(ctx context.Context) error {
	if err := l.impl.release(ctx); err != nil {
		return fmt.Errorf("release lock %s: %w", l.Path, err)
	}
	return nil
}

func encode(h Holder) []byte {
	b, _ := json.Marshal(h)
	return append(b, '\n')
}

func decode(b []byte) (Holder, bool) {
	var h Holder
	if err := json.Unmarshal(b, &h); err != nil || h.PID == 0 {
		return Holder{}, false
	}
	return h, true
}

// Alive reports whether pid names a running process on this host.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// staleRead, when set (by tests), is called after a stale holder has been read and
// before its lock is taken over: a test lets another run take it over first there.
var staleRead func()

func afterStaleRead() {
	if staleRead != nil {
		staleRead()
	}
}
