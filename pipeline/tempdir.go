package pipeline

import (
	"os"
	"sync"
)

// tempDirMu serializes privateTempDir: it changes TMPDIR, which is the process's.
var tempDirMu sync.Mutex

// privateTempDir runs fn with os.TempDir() naming a new directory, and removes that
// directory afterwards. Beam's portable runner, which the embedded Prism runner goes
// through, creates an empty "beamloopbackworker-*" file in the temporary directory for
// every LOOPBACK job and never removes it (apache/beam#27569): without this, every run
// would leave one more file in /tmp.
func privateTempDir[T any](fn func() (T, error)) (T, error) {
	tempDirMu.Lock()
	defer tempDirMu.Unlock()
	dir, err := os.MkdirTemp("", "neardup-job-*")
	if err != nil {
		return fn() // no private directory: the stray file is not worth failing the run for
	}
	defer os.RemoveAll(dir)
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	defer func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
	}()
	return fn()
}
