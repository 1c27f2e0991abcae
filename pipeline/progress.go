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
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/neardup/neardup/internal/portable"
	"github.com/neardup/neardup/internal/prism"
	"github.com/neardup/neardup/internal/tmpdir"
	"github.com/neardup/neardup/io/source"
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

func runWithProgress(ctx context.Context, p *beam.Pipeline, tempDir string, progressOut io.Writer, inputBytes int64) (beam.PipelineResult, error) {
	run := func() (beam.PipelineResult, error) {
		if portable.Serves(*runners.Runner) {
			return portable.Execute(ctx, p, *runners.Runner, tempDir)
		}
		if r := *runners.Runner; (r == "" || r == "prism") && *jobopts.Endpoint == "" {
			return prism.Execute(ctx, p) // the embedded runner, with neardup's fixes
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
	done := reportProgress(progressOut, 2*time.Second, inputBytes, remote, stop)
	res, err := tmpdir.Run(run)
	close(stop)
	<-done
	return res, err
}

// reportProgress prints a Progress line to w every interval until stop is closed. On a
// terminal the line is rewritten in place; otherwise one line is printed per interval.
// inputBytes is the size of the inputs when every one is read as lines of that many
// bytes (uncompressed JSONL or text), else 0: the reading stage's time left is estimated
// from the share of it read so far. The counts are this process's: when the workers run
// elsewhere, on the runner remote (whose job servers report metrics only once a job has
// ended), the line says so instead.
func reportProgress(w io.Writer, interval time.Duration, inputBytes int64, remote string, stop <-chan struct{}) (done <-chan struct{}) {
	finished := make(chan struct{})
	tty := isTerminal(w)
	start := time.Now()
	// The counters are the process's: a run reports what moved since it started.
	read0, shingled0, bytes0 := elem.Progress.Read.Load(), elem.Progress.Shingled.Load(), source.BytesRead.Load()
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
				line := progressLine(elem.Progress.Read.Load()-read0, elem.Progress.Shingled.Load()-shingled0,
					source.BytesRead.Load()-bytes0, inputBytes, stage, time.Since(start))
				if remote != "" {
					line = fmt.Sprintf("neardup: running on %s, %s elapsed; its workers report no counts until the job ends",
						remote, time.Since(start).Round(time.Second))
				}
				if tty {
					fmt.Fprintf(w, "\r%-120s", line)
				} else {
					fmt.Fprintln(w, line)
				}
			}
		}
	}()
	return finished
}

// progressLine is one Progress line: documents read and their rate over the elapsed
// time, and, when the input size is known (inputBytes > 0), the reading stage's time left
// at the rate its bytes have been read so far.
func progressLine(read, shingled, bytesRead, inputBytes int64, stage string, elapsed time.Duration) string {
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(read) / s
	}
	line := fmt.Sprintf("neardup: %d documents read (%.0f/s), %d shingled, stage %s, %s elapsed",
		read, rate, shingled, stage, elapsed.Round(time.Second))
	switch {
	case inputBytes <= 0:
	case bytesRead >= inputBytes:
		line += ", reading done"
	case bytesRead > 0:
		left := time.Duration(float64(elapsed) * float64(inputBytes-bytesRead) / float64(bytesRead))
		line += fmt.Sprintf(", reading %.0f%%, about %s left", 100*float64(bytesRead)/float64(inputBytes), left.Round(time.Second))
	}
	return line
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
