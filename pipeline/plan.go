package pipeline

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/spill"
	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/pipeline/internal/indexwrite"
	"github.com/neardup/neardup/report"
)

// plan is one run as it will execute: the validated Config, never changed, and what
// probing the inputs, the indexes, the runner's flags and the output directory found.
// The graph is built from the plan alone, and the run executes and commits through it.
type plan struct {
	cfg Config

	inputs      []string // the input files, expanded, sorted and distinct
	format      Format   // their one format (dedup), or Config.Format (an index build)
	bands, rows int
	containment *lsh.ContainmentScheme // --measure containment's banding per size class
	cc          CC                     // CCLocal or CCDistributed
	layout      Layout                 // LayoutSingle or LayoutSharded
	shards      int                    // parts of each sharded record output
	indexes     []*index.Manifest      // the --against indexes, opened and checked
	preferred   []string               // --prefer, expanded
	indexWrite  *indexwrite.Target     // where --update-index writes
	names       []string               // the outputs the run commits

	dir        *runDir // the output directory's lock and the run's temporary directory
	spillDir   string  // where stages spill to local files; "": through the runner
	cleanSpill func()
	// inputBytes is the inputs' size when the progress line can tell the share read
	// from their bytes (uncompressed JSONL or text), else 0.
	inputBytes int64
	sized      *inputSize // the inputs as measureInputs found them, once asked
	// spilledBefore is the process's spilled bytes when the job started.
	spilledBefore int64
}

// planDedup probes everything a dedup run depends on before any graph is built: the
// indexes, the job server, the inputs and their format, the banding, the layout and the
// connected-components algorithm, and then takes the output directory. Errors in what
// was asked for are UsageErrors.
func planDedup(ctx context.Context, cfg Config) (*plan, error) {
	pl := &plan{cfg: cfg}
	if err := pl.openIndexes(ctx); err != nil {
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
	var err error
	if pl.inputs, err = source.Files(ctx, cfg.sourceConfig(cfg.Format)); err != nil {
		return nil, UsageError{fmt.Errorf("--input: %w", err)}
	}
	f, err := source.OutputFormat(pl.inputs, string(cfg.Format))
	if err != nil {
		return nil, UsageError{fmt.Errorf("--input: %w", err)}
	}
	pl.format = Format(f)
	if err := pl.checkFormat(); err != nil {
		return nil, UsageError{err}
	}
	if err := pl.chooseBanding(); err != nil {
		return nil, UsageError{err}
	}
	if err := pl.resolveLayout(ctx); err != nil {
		return nil, UsageError{err}
	}
	if err := pl.resolveCC(ctx); err != nil {
		return nil, UsageError{err}
	}
	pl.names = pl.committed(append(pl.outputNames(), clustersFile, report.SimilaritiesFile, report.HTMLFile, statsFile))
	for _, w := range source.ReadBack(cfg.Inputs, cfg.Output, pl.names) {
		fmt.Fprintf(cfg.warnings(), "neardup dedup: warning: %s\n", w)
	}
	if err := pl.open(ctx, "dedup"); err != nil {
		return nil, err
	}
	if err := pl.checkDisk(ctx); err != nil {
		pl.abort(ctx)
		return nil, err
	}
	if pl.dir.recovered && len(cfg.Against) > 0 {
		// The commit it finished may have committed an --against index's generation.
		if err := pl.openIndexes(ctx); err != nil {
			pl.abort(ctx)
			return nil, err
		}
	}
	if !cfg.Overwrite {
		for _, n := range pl.names {
			if exists(ctx, files.Join(cfg.Output, n)) {
				pl.abort(ctx)
				return nil, UsageError{fmt.Errorf("--output %s already holds %s from an earlier run; pass --overwrite to replace it", cfg.Output, n)}
			}
		}
	}
	return pl, nil
}

// planIndex probes what an index build depends on: the job server, that --output is
// not an index already, and the inputs; then it takes the output directory.
func planIndex(ctx context.Context, cfg Config) (*plan, error) {
	pl := &plan{cfg: cfg, format: cfg.Format}
	if err := checkJobServer(ctx); err != nil {
		return nil, UsageError{err}
	}
	if _, err := index.ReadManifest(ctx, cfg.Output); err == nil {
		return nil, UsageError{fmt.Errorf("--output %s is already an index; add documents with dedup --against %s --update-index", cfg.Output, cfg.Output)}
	}
	var err error
	if pl.bands, pl.rows, err = cfg.bandsRows(); err != nil {
		return nil, UsageError{err}
	}
	if pl.inputs, err = source.Files(ctx, cfg.sourceConfig(cfg.Format)); err != nil {
		return nil, UsageError{fmt.Errorf("--input: %w", err)}
	}
	if err := pl.open(ctx, "index"); err != nil {
		return nil, err
	}
	return pl, nil
}

// chooseBanding fixes the LSH bands and rows, or containment's size-class banding.
func (pl *plan) chooseBanding() error {
	c := &pl.cfg
	if !c.isContainment() {
		var err error
		pl.bands, pl.rows, err = c.bandsRows()
		return err
	}
	s, err := ChooseContainment(c.Threshold, c.NumPerm)
	if err != nil {
		return fmt.Errorf("--threshold %v with --num-perm %d: %w", c.Threshold, c.NumPerm, err)
	}
	pl.containment = &s
	return nil
}

// open takes the output directory (lock, temporary directory, the runner's log) and
// chooses the spill directory; command names the run in warnings.
func (pl *plan) open(ctx context.Context, command string) error {
	dir, err := openRunDir(ctx, pl.cfg.Output)
	if err != nil {
		return err
	}
	pl.dir = dir
	for _, n := range dir.Notes {
		fmt.Fprintf(pl.cfg.warnings(), "neardup %s: warning: %s\n", command, n)
	}
	notes, err := pl.chooseSpillDir()
	for _, n := range notes {
		fmt.Fprintf(pl.cfg.warnings(), "neardup %s: warning: %s\n", command, n)
	}
	if err != nil {
		dir.abort(ctx)
		return UsageError{err}
	}
	return nil
}

// execute runs the job build adds to a new pipeline on the runner Beam's flags name,
// and returns the runner's result and the counts the stages left in the temporary
// directory (countsFile). A failed job aborts the run, naming the runner's log; a dry
// run aborts it too and returns ErrDryRun.
func (pl *plan) execute(ctx context.Context, build func(beam.Scope), progressOut io.Writer) (beam.PipelineResult, map[string]int64, error) {
	p, s := beam.NewPipelineWithRoot()
	build(s)
	pl.spilledBefore = spill.Written()
	res, err := runWithProgress(ctx, p, pl.tmp(), progressOut, pl.inputBytes)
	spill.CloseFiles() // the job read its spill: the commit may remove the files
	if err != nil {
		return nil, nil, pl.dir.failed(ctx, jobError(err))
	}
	if dryRun() {
		if log := pl.dir.abort(ctx); log != "" {
			return nil, nil, fmt.Errorf("%w; the runner's log, with the job graph, is %s", ErrDryRun, log)
		}
		return nil, nil, ErrDryRun
	}
	counts, err := tally.Read(ctx, files.Join(pl.dir.tmp, countsFile))
	if err != nil {
		return nil, nil, pl.dir.failed(ctx, err.Error())
	}
	return res, counts, nil
}

// abort gives up the run before its job: nothing is committed.
func (pl *plan) abort(ctx context.Context) {
	pl.dir.abort(ctx)
	pl.close()
}

// close removes what the plan made outside the temporary directory.
func (pl *plan) close() {
	if pl.cleanSpill != nil {
		pl.cleanSpill()
		pl.cleanSpill = nil
	}
}

// tmp is the run's temporary directory, where the job writes every output before the
// commit moves it into --output.
func (pl *plan) tmp() string { return pl.dir.tmp }
