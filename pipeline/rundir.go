package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/neardup/neardup/internal/interrupt"
	"github.com/neardup/neardup/internal/portable"
	"github.com/neardup/neardup/io/commit"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/runlock"
	"github.com/neardup/neardup/io/sink"
)

// tempPrefix starts the name of every run's temporary directory (sink.NewTempDir).
const tempPrefix = ".neardup-tmp-"

// logName is the runner's log inside the temporary directory.
const logName = "beam.log"

// lastLog is the log file the default logger writes to (closeLog).
var lastLog *os.File

// runDir is one run's hold on its --output directory: the lock, the temporary directory
// the pipeline writes into, and the log file the Beam SDK and Prism write to instead of
// the terminal. Every way out of a run goes through commit or abort, so no run leaves
// its temporary directory behind (a killed one is cleaned by the next run).
type runDir struct {
	out, tmp string
	lock     *runlock.Lock
	logPath  string
	logFile  *os.File
	keepLog  bool // the log is RunnerLogEnv's file, not the run's own
	// unregister removes the cleanup a SIGINT or SIGTERM would run (interrupted), which
	// does nothing once committed is set (under interrupt.Critical).
	unregister func()
	committed  bool
	// committing is set while commit.Commit runs: the directory may then read through
	// the temporary directory, which abort must not remove before commit.Recover.
	committing bool
	// recovered is set when opening finished or undid an earlier run's commit, which may
	// have committed an index generation with it (commit.SetFollowUp).
	recovered bool
	// Notes are what the user should hear about the directory: a stale lock taken over,
	// leftovers of killed runs removed.
	Notes []string
}

// openRunDir checks that --output can be written by creating it and the temporary
// directory, takes the lock, finishes or undoes a commit that a killed run left
// (commit.Recover), removes the temporary directories of runs that are gone and sends
// Beam's logging to the log file. Problems with --output itself are UsageErrors.
func openRunDir(ctx context.Context, out string) (*runDir, error) {
	d := &runDir{out: out, tmp: sink.NewTempDir(out)}
	if files.IsLocal(out) {
		if err := os.MkdirAll(out, 0o777); err != nil {
			return nil, UsageError{fmt.Errorf("--output %s: cannot create the directory: %w", out, unwrapPath(err))}
		}
	}
	lock, stale, err := runlock.Acquire(ctx, out, runlock.Me(filepath.Base(d.tmp)))
	var held *runlock.HeldError
	switch {
	case errors.As(err, &held):
		return nil, fmt.Errorf("--output %s: %w", out, err)
	case err != nil:
		return nil, UsageError{fmt.Errorf("--output %s: not writable: %w", out, err)}
	}
	d.lock = lock
	if stale != nil {
		d.Notes = append(d.Notes, fmt.Sprintf("took over the lock of a run that is no longer running (%s)", stale))
	}
	// Before removeStale: an interrupted commit's outputs are in its temporary directory.
	recovered, err := commit.Recover(ctx, out)
	if err != nil {
		d.lock.Release(ctx)
		return nil, err
	}
	if recovered != "" {
		d.recovered = true
		d.Notes = append(d.Notes, recovered)
	}
	if err := d.removeStale(ctx); err != nil {
		d.lock.Release(ctx)
		return nil, err
	}
	if err := d.openLog(); err != nil {
		d.lock.Release(ctx)
		return nil, UsageError{fmt.Errorf("--output %s: not writable: %w", out, err)}
	}
	d.unregister = interrupt.Register(d.interrupted)
	return d, nil
}

// interrupted is the run's cleanup on SIGINT or SIGTERM: the temporary directory, the
// log with it, and the lock. The workers may still be writing, hence the retries.
func (d *runDir) interrupted() string {
	if d.committed {
		return ""
	}
	ctx := context.Background()
	d.closeLog()
	if d.committing {
		// As in abort: the directory may read through the temporary directory.
		if _, err := commit.Recover(ctx, d.out); err != nil {
			d.lock.Release(ctx)
			return fmt.Sprintf("the commit to %s was cut short; the next run into it finishes it", d.out)
		}
		d.committing = false
	}
	interrupt.Retry(func() error { return files.RemoveAll(ctx, d.tmp) })
	if !files.IsLocal(d.out) && !d.keepLog {
		os.Remove(d.logPath)
	}
	d.lock.Release(ctx)
	return fmt.Sprintf("nothing was committed to %s; its temporary directory and lock were removed", d.out)
}

// removeStale deletes every other temporary directory: holding the lock means no other
// run is using one, so they belong to runs that were killed or failed.
func (d *runDir) removeStale(ctx context.Context) error {
	dirs, err := files.SubdirsWithPrefix(ctx, d.out, tempPrefix)
	if err != nil {
		return err
	}
	var names []string
	for _, dir := range dirs {
		if dir == d.tmp {
			continue
		}
		// A killed launcher could not cancel its job on the engine.
		if note := portable.CancelOrphan(ctx, dir); note != "" {
			d.Notes = append(d.Notes, note)
		}
		if err := files.RemoveAll(ctx, dir); err != nil {
			return fmt.Errorf("remove the temporary directory of an earlier run: %w", err)
		}
		names = append(names, filepath.Base(dir))
	}
	if len(names) > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("removed %d temporary director%s left in %s by runs that did not finish: %s",
			len(names), map[bool]string{true: "y", false: "ies"}[len(names) == 1], d.out, strings.Join(names, ", ")))
	}
	return nil
}

// runnerLogEnv names an environment variable: when it holds a path, the runner's log
// goes to that file at debug level and stays there after the run. Prism then logs the
// start and the end of every bundle with its stage, and which transforms each stage
// fuses: bench/stages.sh turns that into the time of each stage.
const runnerLogEnv = "NEARDUP_RUNNER_LOG"

// openLog creates the temporary directory (local output) and the log file in it, which
// proves the directory writable before any work; for remote output the log is a local
// temporary file.
func (d *runDir) openLog() error {
	var f *os.File
	var err error
	level := slog.LevelInfo
	if files.IsLocal(d.out) {
		if err = os.Mkdir(d.tmp, 0o777); err != nil {
			return unwrapPath(err)
		}
	}
	switch path := os.Getenv(runnerLogEnv); {
	case path != "":
		f, err = os.Create(path)
		d.keepLog, level = true, slog.LevelDebug
	case files.IsLocal(d.out):
		f, err = os.Create(filepath.Join(d.tmp, logName))
	default:
		f, err = os.CreateTemp("", "neardup-*.log")
	}
	if err != nil {
		return unwrapPath(err)
	}
	d.logFile, d.logPath = f, f.Name()
	if lastLog != nil {
		lastLog.Close()
	}
	lastLog = f
	// Beam's log package and Prism both log through slog's default logger (and the log
	// package through it, once SetDefault is called).
	slog.SetDefault(slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: level})))
	return nil
}

// closeLog ends the run's use of the log. The file stays open and the default logger
// on it: the runner's workers shut down after the job has ended and still log (a failed
// bundle is reported then), which must not reach the terminal either. The file is
// closed when the next run opens its own.
func (d *runDir) closeLog() {
	if d.logFile == nil {
		return
	}
	d.logFile.Sync()
	d.logFile = nil
}

// commit publishes the outputs names as one set replacing every older output (older:
// every name a run may write) if the lock is still this run's, then removes the
// temporary directory (and the log with it) and releases the lock.
// A signal during the commit is acted on once it is done.
func (d *runDir) commit(ctx context.Context, names, older []string) error {
	err := interrupt.Critical(func() error {
		d.closeLog()
		if err := d.lock.Check(ctx); err != nil {
			return err
		}
		d.committing = true
		var fe *commit.FollowUpError
		cerr := commit.Commit(ctx, d.tmp, d.out, names, older)
		if cerr != nil && !errors.As(cerr, &fe) {
			return fmt.Errorf("commit outputs to %s: %w", d.out, cerr)
		}
		d.committing = false
		d.committed = true
		if !files.IsLocal(d.out) && !d.keepLog {
			os.Remove(d.logPath)
		}
		return errors.Join(cerr, d.lock.Release(ctx)) // a *commit.FollowUpError: the outputs are committed
	})
	if d.committed {
		d.unregister()
	}
	return err
}

// abort removes everything the run wrote except its log, releases the lock and returns
// the log's path ("" when the log is empty, and then removed too).
func (d *runDir) abort(ctx context.Context) string {
	d.unregister()
	d.closeLog()
	if d.committing {
		// The directory may read through the temporary directory: end the commit first,
		// or, failing that, leave everything to the next run's commit.Recover.
		if _, err := commit.Recover(ctx, d.out); err != nil {
			d.lock.Release(ctx)
			return d.logPath
		}
		d.committing = false
	}
	keep := ""
	if st, err := os.Stat(d.logPath); err == nil && st.Size() > 0 {
		keep = d.logPath
	}
	if files.IsLocal(d.out) {
		entries, _ := os.ReadDir(d.tmp)
		for _, e := range entries {
			if p := filepath.Join(d.tmp, e.Name()); p != keep {
				os.RemoveAll(p)
			}
		}
		if keep == "" || d.keepLog { // RunnerLogEnv's log is not in the directory
			os.Remove(d.tmp)
		}
	} else {
		files.RemoveAll(ctx, d.tmp)
		if keep == "" && !d.keepLog {
			os.Remove(d.logPath)
		}
	}
	d.lock.Release(ctx)
	return keep
}

// unwrapPath drops the *PathError's repetition of the path the message already names.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// jobError is the part of a failed job's error that the user needs: the Prism runner
// wraps a DoFn's error in the bundle's whole execution plan, and the DoFn's own message
// (a duplicate id, a damaged input) comes after the last "] failed:" line. When nothing
// does (a job that failed before any bundle ran), the whole error is the message.
func jobError(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, "] failed:\n"); i >= 0 {
		if msg := strings.TrimSpace(s[i+len("] failed:\n"):]); msg != "" {
			return msg
		}
	}
	return strings.TrimSpace(s)
}

// failed aborts the run and returns its error, saying that nothing was committed and
// where the runner's log is.
func (d *runDir) failed(ctx context.Context, msg string) error {
	if d.committing {
		log := d.abort(ctx)
		return fmt.Errorf("%s (the commit to %s was cut short; %s holds one complete set of outputs, or the next run into it completes the commit; the runner's log is %s)", msg, d.out, d.out, log)
	}
	if log := d.abort(ctx); log != "" {
		return fmt.Errorf("%s (nothing was committed to %s; the runner's log is %s)", msg, d.out, log)
	}
	return fmt.Errorf("%s (nothing was committed to %s)", msg, d.out)
}
