package pipeline

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"

	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/sink"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/pipeline/internal/output"
	"github.com/neardup/neardup/report"
)

// Run executes the dedup job on the runner named by Beam's --runner flag (Prism when
// unset), then writes stats.json and moves every output into cfg.Output. Progress, when
// not nil, receives a Progress line while the job runs.
func Run(ctx context.Context, cfg Config, progressOut io.Writer) (*Stats, error) {
	if err := cfg.Validate(); err != nil {
		return nil, UsageError{err}
	}
	if err := cfg.OpenIndexes(ctx); err != nil {
		return nil, err
	}
	if *jobopts.Async {
		// Outputs are committed when the job has finished; an asynchronous submission
		// would commit files the job has not written yet.
		return nil, UsageError{fmt.Errorf("--async is not supported: neardup waits for the job to finish to check and commit its outputs")}
	}
	if err := checkJobServer(ctx); err != nil {
		return nil, UsageError{err}
	}
	start := time.Now()
	inputs, err := source.Files(ctx, cfg.sourceConfig())
	if err != nil {
		return nil, UsageError{fmt.Errorf("--input: %w", err)}
	}
	if cfg.Format, err = source.OutputFormat(inputs, cfg.Format); err != nil {
		return nil, UsageError{fmt.Errorf("--input: %w", err)}
	}
	if err := cfg.checkFormat(); err != nil {
		return nil, UsageError{err}
	}
	if err := cfg.resolveLayout(inputs); err != nil {
		return nil, UsageError{err}
	}
	cfg.resolveCC()
	names := cfg.committed(append(cfg.outputNames(), clustersFile, report.SimilaritiesFile, report.HTMLFile, statsFile))
	for _, w := range source.ReadBack(cfg.Inputs, cfg.Output, names) {
		fmt.Fprintf(cfg.warnings(), "neardup dedup: warning: %s\n", w)
	}
	dir, err := openRunDir(ctx, cfg.Output)
	if err != nil {
		return nil, err
	}
	for _, n := range dir.Notes {
		fmt.Fprintf(cfg.warnings(), "neardup dedup: warning: %s\n", n)
	}
	if !cfg.Overwrite {
		for _, n := range names {
			if exists(ctx, files.Join(cfg.Output, n)) {
				dir.abort(ctx)
				return nil, UsageError{fmt.Errorf("--output %s already holds %s from an earlier run; pass --overwrite to replace it", cfg.Output, n)}
			}
		}
	}
	tempDir := dir.tmp
	cleanSpill, err := cfg.chooseSpillDir(tempDir)
	if err != nil {
		dir.abort(ctx)
		return nil, fmt.Errorf("band spill directory: %w", err)
	}
	defer cleanSpill()

	p, s := beam.NewPipelineWithRoot()
	build(s, &cfg, inputs, tempDir)

	res, err := runWithProgress(ctx, p, progressOut)
	if err != nil {
		return nil, dir.failed(ctx, jobError(err))
	}
	if dryRun() {
		if log := dir.abort(ctx); log != "" {
			return nil, fmt.Errorf("%w; the runner's log, with the job graph, is %s", ErrDryRun, log)
		}
		return nil, ErrDryRun
	}

	counts, err := tally.Read(ctx, files.Join(tempDir, countsFile))
	if err != nil {
		return nil, dir.failed(ctx, err.Error())
	}
	st := newStats(&cfg, inputs, counts, res, time.Since(start))
	if err := st.check(); err != nil {
		return st, dir.failed(ctx, err.Error())
	}
	if err := st.addDamaged(ctx, files.Join(tempDir, sink.Rejected)); err != nil {
		return st, dir.failed(ctx, err.Error())
	}
	if err := output.WriteJSON(ctx, files.Join(tempDir, statsFile), st); err != nil {
		return st, dir.failed(ctx, err.Error())
	}
	if names, err = writeReport(ctx, &cfg, tempDir, st, names); err != nil {
		return st, dir.failed(ctx, err.Error())
	}
	commitIndex, err := cfg.indexCommit(ctx, tempDir)
	if err != nil {
		return st, dir.failed(ctx, err.Error())
	}
	if err := dir.commit(ctx, names, olderOutputs()); err != nil {
		return st, dir.failed(ctx, err.Error())
	}
	if err := commitIndex(); err != nil {
		return st, fmt.Errorf("outputs are in %s, but the index was not updated: %w", cfg.Output, err)
	}
	return st, nil
}

// Names of the outputs written besides the records (which sink names).
const (
	clustersFile = output.ClustersFile
	statsFile    = output.StatsFile
)

// exists reports whether path is a file or a directory holding files.
func exists(ctx context.Context, path string) bool {
	rel, err := files.Tree(ctx, path)
	return err == nil && len(rel) > 0
}
