package pipeline

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/sink"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/report"
)

// Run executes the dedup job on the runner named by Beam's --runner flag (Prism when
// unset), then writes stats.json and moves every output into cfg.Output. progress, when
// not nil, receives a progress line while the job runs.
func Run(ctx context.Context, cfg Config, progressOut io.Writer) (*Stats, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if *jobopts.Async {
		// Outputs are committed when the job has finished; an asynchronous submission
		// would commit files the job has not written yet.
		return nil, fmt.Errorf("--async is not supported: neardup waits for the job to finish to check and commit its outputs")
	}
	start := time.Now()
	inputs, err := source.Files(ctx, cfg.sourceConfig())
	if err != nil {
		return nil, err
	}
	if cfg.Format, err = source.OutputFormat(inputs, cfg.Format); err != nil {
		return nil, err
	}
	names := append(sink.OutputNames(cfg.Format), ClustersFile, SimilaritiesFile, report.HTMLFile, StatsFile)
	if !cfg.Overwrite {
		for _, n := range names {
			if exists(ctx, files.Join(cfg.Output, n)) {
				return nil, fmt.Errorf("--output %s already holds %s from an earlier run; pass --overwrite to replace it", cfg.Output, n)
			}
		}
	}
	tempDir := sink.NewTempDir(cfg.Output)

	p, s := beam.NewPipelineWithRoot()
	Build(s, &cfg, inputs, tempDir)

	var stop chan struct{}
	var done <-chan struct{}
	if progressOut != nil {
		stop = make(chan struct{})
		done = reportProgress(progressOut, 2*time.Second, stop)
	}
	res, err := beamx.RunWithMetrics(ctx, p)
	if stop != nil {
		close(stop)
		<-done
	}
	if err != nil {
		return nil, fmt.Errorf("dedup pipeline failed (nothing was written to %s): %w", cfg.Output, err)
	}

	st := newStats(&cfg, inputs, res, time.Since(start))
	if err := st.check(); err != nil {
		return st, err
	}
	if err := writeJSON(ctx, files.Join(tempDir, StatsFile), st); err != nil {
		return st, err
	}
	if names, err = writeReport(ctx, &cfg, tempDir, st, names); err != nil {
		return st, err
	}
	if err := sink.Commit(ctx, tempDir, cfg.Output, names); err != nil {
		return st, fmt.Errorf("commit outputs to %s: %w", cfg.Output, err)
	}
	return st, nil
}

func exists(ctx context.Context, path string) bool {
	r, err := files.Open(ctx, path)
	if err != nil {
		return false
	}
	r.Close()
	return true
}

func writeJSON(ctx context.Context, path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return writeFile(ctx, path, func(w *bufio.Writer) {
		w.Write(b)
		w.WriteByte('\n')
	})
}
