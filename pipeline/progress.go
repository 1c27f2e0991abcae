package pipeline

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/neardup/neardup/internal/portable"
	"github.com/neardup/neardup/internal/tmpdir"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// runWithProgress runs p on the runner Beam's flags name and waits for it, printing a
// Progress line to progressOut (when not nil) while it runs. A job on Flink or Spark is
// recorded in tempDir, the run's temporary directory (internal/portable).
// ErrDryRun is returned when the runner was asked for a dry run (Dataflow's --dry_run):
// the job was translated and not submitted, so nothing was written or committed.
var ErrDryRun = errors.New("dry run: the runner translated the job and did not submit it; nothing was written")

// dryRun reports whether the runner was asked for a dry run: Dataflow's runner defines
// the flag, which it reads itself.
func dryRun() bool {
	f := flag.Lookup("dry_run")
	return f != nil && f.Value.String() == "true"
}

func runWithProgress(ctx context.Context, p *beam.Pipeline, tempDir string, progressOut io.Writer) (beam.PipelineResult, error) {
	run := func() (beam.PipelineResult, error) {
		if portable.Serves(*runners.Runner) {
			return portable.Execute(ctx, p, *runners.Runner, tempDir)
		}
		return beamx.RunWithMetrics(ctx, p)
	}
	if progressOut == nil {
		return tmpdir.Run(run)
	}
	stop := make(chan struct{})
	remote := ""
	if !workersInProcess() {
		remote = *runners.Runner
	}
	done := reportProgress(progressOut, 2*time.Second, remote, stop)
	res, err := tmpdir.Run(run)
	close(stop)
	<-done
	return res, err
}

// reportProgress prints a Progress line to w every interval until stop is closed. On a
// terminal the line is rewritten in place; otherwise one line is printed per interval.
// The counts are this process's: when the workers run elsewhere, on the runner remote
// (whose job servers report metrics only once a job has ended), the line says so instead.
func reportProgress(w io.Writer, interval time.Duration, remote string, stop <-chan struct{}) (done <-chan struct{}) {
	finished := make(chan struct{})
	tty := isTerminal(w)
	start := time.Now()
	go func() {
		defer close(finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				if tty {
					fmt.Fprintln(w)
				}
				return
			case <-t.C:
				stage, _ := elem.Progress.Stage.Load().(string)
				if stage == "" {
					stage = "starting"
				}
				line := fmt.Sprintf("neardup: %d documents read, %d shingled, stage %s, %s elapsed",
					elem.Progress.Read.Load(), elem.Progress.Shingled.Load(), stage, time.Since(start).Round(time.Second))
				if remote != "" {
					line = fmt.Sprintf("neardup: running on %s, %s elapsed; its workers report no counts until the job ends",
						remote, time.Since(start).Round(time.Second))
				}
				if tty {
					fmt.Fprintf(w, "\r%-100s", line)
				} else {
					fmt.Fprintln(w, line)
				}
			}
		}
	}()
	return finished
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
