// Package tmpdir runs code with a temporary directory of its own. Beam's portable runner,
// which the embedded Prism runner goes through, creates an empty "beamloopbackworker-*"
// file in the temporary directory for every LOOPBACK job and never removes it
// (apache/beam#27569): every dedup run, and every job of the test suite, would leave one
// more file in /tmp.
package tmpdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/neardup/neardup/internal/interrupt"
	"sync/atomic"
)

// prefix starts every directory Run makes; the owner's pid follows it.
const prefix = "neardup-job-"

// removeStale removes the directories Run made in parent whose owner process is gone (a
// killed process runs no defers). A directory whose owner still runs, or belongs to
// another user (kill answers EPERM), or whose name holds no pid, is left alone.
func removeStale(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			os.RemoveAll(filepath.Join(parent, e.Name()))
		}
	}
}

// current is the directory of the Run in progress, if any.
var current atomic.Pointer[string]

// Run runs fn with os.TempDir() naming a new directory, then removes the directory and
// restores TMPDIR. It first removes the directories of earlier Runs that were killed. A Run inside another while TMPDIR still names the outer one's
// directory (a test suite's TestMain around its tests' jobs) uses that directory, which
// the outer Run removes. If no directory can be made, fn runs as it is: a stray file is
// not worth failing for. Runs are not meant to be concurrent: TMPDIR is the process's.
func Run[T any](fn func() (T, error)) (T, error) {
	if d := current.Load(); d != nil && os.Getenv("TMPDIR") == *d {
		return fn()
	}
	removeStale(os.TempDir())
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", prefix, os.Getpid()))
	if err != nil {
		return fn()
	}
	defer os.RemoveAll(dir)
	// A SIGINT or SIGTERM ends the process without running the defers.
	defer interrupt.Register(func() string {
		interrupt.Retry(func() error { return os.RemoveAll(dir) })
		return ""
	})()
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	prev := current.Swap(&dir)
	defer func() {
		current.Store(prev)
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
	}()
	return fn()
}
