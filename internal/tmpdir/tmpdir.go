// Package tmpdir runs code with a temporary directory of its own. Beam's portable runner,
// which the embedded Prism runner goes through, creates an empty "beamloopbackworker-*"
// file in the temporary directory for every LOOPBACK job and never removes it
// (apache/beam#27569): every dedup run, and every job of the test suite, would leave one
// more file in /tmp.
package tmpdir

import (
	"os"

	"github.com/neardup/neardup/internal/interrupt"
	"sync/atomic"
)

// current is the directory of the Run in progress, if any.
var current atomic.Pointer[string]

// Run runs fn with os.TempDir() naming a new directory, then removes the directory and
// restores TMPDIR. A Run inside another while TMPDIR still names the outer one's
// directory (a test suite's TestMain around its tests' jobs) uses that directory, which
// the outer Run removes. If no directory can be made, fn runs as it is: a stray file is
// not worth failing for. Runs are not meant to be concurrent: TMPDIR is the process's.
func Run[T any](fn func() (T, error)) (T, error) {
	if d := current.Load(); d != nil && os.Getenv("TMPDIR") == *d {
		return fn()
	}
	dir, err := os.MkdirTemp("", "neardup-job-")
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
