package e2e

import (
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Engines shared by tests: a job server or cluster takes longer to start than most jobs
// run, so the tests of one engine (its matrix and its fault test) share it. The first
// test that asks for it starts it; the last one in the package's order stops it (or,
// when only some tests run, the end of the package does).
var shared struct {
	sync.Mutex
	m map[string]*sharedScope
}

// sharedScope is what one shared engine started: its cleanups (the processes it
// started) and temporary directories, which outlive the test that started it.
type sharedScope struct {
	testing.TB // the test starting the engine: a failure to start is that test's
	mu         sync.Mutex
	cleanups   []func()
	dirs       []string
	engine     any
}

// Cleanup defers f until the shared engine stops.
func (s *sharedScope) Cleanup(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cleanups = append(s.cleanups, f)
}

// TempDir returns a new directory removed when the shared engine stops.
func (s *sharedScope) TempDir() string {
	dir, err := os.MkdirTemp("", "neardup-e2e-shared-")
	require.NoError(s.TB, err)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dirs = append(s.dirs, dir)
	return dir
}

// stop runs the cleanups, last first, and removes the directories.
func (s *sharedScope) stop() {
	s.mu.Lock()
	cleanups, dirs := s.cleanups, s.dirs
	s.cleanups, s.dirs = nil, nil
	s.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	for _, d := range dirs {
		_ = os.RemoveAll(d)
	}
}

// sharedEngine returns the engine shared under key, calling start to start it if no test
// has (start's testing.TB keeps what it starts until the engine stops). With last, the
// engine stops when t ends: t is the last test of the package's order to use it, or
// leaves it unfit for another (a TaskManager killed).
func sharedEngine[E any](t *testing.T, key string, last bool, start func(tb testing.TB) E) E {
	t.Helper()
	shared.Lock()
	if shared.m == nil {
		shared.m = map[string]*sharedScope{}
	}
	s, ok := shared.m[key]
	if !ok {
		s = &sharedScope{TB: t}
		shared.m[key] = s
	}
	shared.Unlock()
	if last {
		t.Cleanup(func() { stopShared(key) })
	}
	if !ok {
		started := false
		defer func() {
			if !started { // start failed the test: the next test starts anew
				stopShared(key)
			}
		}()
		s.engine = start(s)
		started = true
	}
	return s.engine.(E)
}

// stopShared stops the engine shared under key, if one runs.
func stopShared(key string) {
	shared.Lock()
	s := shared.m[key]
	delete(shared.m, key)
	shared.Unlock()
	if s != nil {
		s.stop()
	}
}

// stopAllShared stops every shared engine still running (after the package's tests).
func stopAllShared() {
	shared.Lock()
	keys := make([]string, 0, len(shared.m))
	for k := range shared.m {
		keys = append(keys, k)
	}
	shared.Unlock()
	for _, k := range keys {
		stopShared(k)
	}
}
