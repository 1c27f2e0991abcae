// Package commit publishes a run's outputs, written under a temporary directory inside
// the output directory, as one set: a reader of the output directory finds either the
// complete set of outputs it held before or the complete new set, even when the process
// is killed during the commit, and the next run (Recover) finishes or undoes a commit
// that was cut short.
//
// On a local filesystem the switch is one rename (commitLocal): during the commit every
// output name is a symlink through Current, and renaming Current from the older set to
// the new one publishes every file at once. Afterwards the outputs are plain files again.
// Object stores have no rename and no symlink: there the commit writes Journal first,
// which decides the new set, then copies the outputs with the marker (the last name,
// stats.json) removed first and written last, then deletes Journal (commitJournal).
// A reader there trusts a directory that holds the marker and no Journal.
//
// The names committed are plain entries of the output directory: files, or directories
// of files (a set of parts) which are published as one entry.
package commit

import (
	"context"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/neardup/neardup/io/files"
)

const (
	// Current is the symlink every output name reads through while a local commit runs;
	// it points into the committing run's temporary directory, at the older set (old/)
	// and then at the new one (new/).
	Current = ".neardup-current"
	// Journal names the object that decides a commit on object stores (and on local
	// filesystems without symlinks): while it exists the directory is being rolled
	// forward to the set it names, and its outputs are not to be read.
	Journal = ".neardup-commit.json"
	// KillEnv names an environment variable for tests: when it holds N, the process
	// kills itself with SIGKILL at the Nth step (file operation) of a commit or recovery.
	KillEnv = "NEARDUP_TEST_KILL_AT_COMMIT_STEP"
)

// Commit publishes names, the outputs in tmp (a direct subdirectory of dir), into dir
// as one set, replacing every older output: a name of older that dir holds and names
// does not is removed with the older set. The name that marks a finished run
// (stats.json) comes last in names. On success tmp is removed. The caller holds dir's
// lock, and has run Recover since taking it.
func Commit(ctx context.Context, tmp, dir string, names, older []string) error {
	if len(names) == 0 {
		return files.RemoveAll(ctx, tmp)
	}
	if files.Join(dir, path.Base(tmp)) != tmp {
		return fmt.Errorf("commit: %s is not directly under %s", tmp, dir)
	}
	for _, n := range names {
		if !plainName(n) {
			return fmt.Errorf("commit: %q is not a plain name", n)
		}
	}
	if files.IsLocal(dir) && localSwitch {
		done, err := commitLocal(tmp, dir, names, older)
		if done || err != nil {
			return err
		}
	}
	return commitJournal(ctx, tmp, dir, names, older)
}

// Recover finishes a commit into dir that was cut short (by a kill), or undoes it when
// it had not reached its switch, so that dir holds exactly one set again. It says what
// it did ("" when there was nothing to do). The caller holds dir's lock, and removes the
// temporary directories of earlier runs only after it.
func Recover(ctx context.Context, dir string) (string, error) {
	if files.IsLocal(dir) {
		msg, err := recoverLocal(ctx, dir)
		if msg != "" || err != nil {
			return msg, err
		}
	}
	return recoverJournal(ctx, dir)
}

// plainName holds for a name that is one entry of a directory (an output name, a
// temporary directory's name): not empty, no separator, not . or .., not hidden by
// the journal's or Current's own names.
func plainName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.ContainsAny(n, `/\`) && n != Current && n != Journal
}

var (
	killOnce sync.Once
	killAt   int
	steps    int
	// localSwitch is false in tests of the journal on local disk.
	localSwitch = true
	// onStep, when set (by this package's tests), is called with each step's number.
	onStep func(n int)
)

// step counts one file operation of a commit and, under KillEnv, kills the process at
// the chosen one, before the operation runs.
func step() {
	killOnce.Do(func() { killAt, _ = strconv.Atoi(os.Getenv(KillEnv)) })
	steps++
	if onStep != nil {
		onStep(steps)
	}
	if killAt > 0 && steps == killAt {
		p, _ := os.FindProcess(os.Getpid())
		p.Kill()
		select {} // the signal ends the process
	}
}
