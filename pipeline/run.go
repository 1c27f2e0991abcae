package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/neardup/neardup/io/commit"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/sink"
	"github.com/neardup/neardup/pipeline/internal/output"
)

// Run deduplicates cfg.Inputs into cfg.Output: it validates cfg, plans the run (probing
// the inputs, indexes, runner and output directory), builds the job from the plan,
// executes it on the runner named by Beam's --runner flag (the embedded Prism runner
// when unset) and commits every output at once, stats.json last. progressOut, when not
// nil, receives a progress line while the job runs. Errors in what was asked for are
// UsageErrors.
func Run(ctx context.Context, cfg Config, progressOut io.Writer) (*Stats, error) {
	if err := cfg.Validate(); err != nil {
		return nil, UsageError{err}
	}
	start := time.Now()
	pl, err := planDedup(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer pl.close()
	res, counts, err := pl.execute(ctx, pl.build, progressOut)
	if err != nil {
		return nil, err
	}
	st := newStats(pl, counts, res, time.Since(start))
	st.Resources = measureResources(pl.spilledBefore)
	return pl.commitDedup(ctx, st)
}

// commitDedup checks the run's accounting and writes stats.json and report.html beside
// the job's outputs, then commits them with the --update-index generation.
func (pl *plan) commitDedup(ctx context.Context, st *Stats) (*Stats, error) {
	tmp := pl.tmp()
	if err := st.check(); err != nil {
		return st, pl.dir.failed(ctx, err.Error())
	}
	if err := st.addDamaged(ctx, files.Join(tmp, sink.Rejected)); err != nil {
		return st, pl.dir.failed(ctx, err.Error())
	}
	if err := output.WriteJSON(ctx, files.Join(tmp, statsFile), st); err != nil {
		return st, pl.dir.failed(ctx, err.Error())
	}
	names, err := pl.writeReport(ctx, st)
	if err != nil {
		return st, pl.dir.failed(ctx, err.Error())
	}
	if err := pl.indexCommit(ctx); err != nil {
		return st, pl.dir.failed(ctx, err.Error())
	}
	if err := pl.dir.commit(ctx, names, olderOutputs()); err != nil {
		var fe *commit.FollowUpError
		if errors.As(err, &fe) {
			return st, fmt.Errorf("outputs are in %s, but %s was not committed with them: %w", pl.cfg.Output, fe.What, fe.Err)
		}
		return st, pl.dir.failed(ctx, err.Error())
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
