package pipeline

import (
	"context"
	"fmt"
	"io"

	"github.com/neardup/neardup/pipeline/internal/indexwrite"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/source"
)

// IndexResult is what BuildIndex reports.
type IndexResult struct {
	Manifest *index.Manifest
	Counts   map[string]int64 // documents_read, records_rejected
}

// BuildIndex indexes every document of cfg.Inputs (no deduplication) into a new index at
// cfg.Output with the given shard count, as generation 1. Records that cannot be read are
// counted, not indexed. An existing index is refused: add to it with dedup
// --update-index.
func BuildIndex(ctx context.Context, cfg Config, shards int, progressOut io.Writer) (*IndexResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if shards < 1 {
		return nil, fmt.Errorf("--shards: must be at least 1, got %d", shards)
	}
	if err := checkJobServer(ctx); err != nil {
		return nil, err
	}
	if _, err := index.ReadManifest(ctx, cfg.Output); err == nil {
		return nil, fmt.Errorf("--output %s is already an index; add documents with dedup --against %s --update-index", cfg.Output, cfg.Output)
	}
	inputs, err := source.Files(ctx, cfg.sourceConfig())
	if err != nil {
		return nil, err
	}
	prev := index.New(cfg.IndexParams(), shards)
	w := indexwrite.NewTarget(cfg.Output, prev)
	// The run directory gives the index build what it gives dedup: the lock, a temporary
	// directory, and Beam's and Prism's logging in its beam.log rather than on stderr.
	dir, err := openRunDir(ctx, cfg.Output)
	if err != nil {
		return nil, err
	}
	for _, n := range dir.Notes {
		fmt.Fprintf(cfg.warnings(), "neardup index: warning: %s\n", n)
	}
	tempDir := dir.tmp
	cleanSpill, err := cfg.chooseSpillDir(tempDir)
	if err != nil {
		dir.abort(ctx)
		return nil, fmt.Errorf("row spill directory: %w", err)
	}
	defer cleanSpill()

	p, s := beam.NewPipelineWithRoot()
	docs, _, readCounts := source.Read(s, inputs, cfg.sourceConfig())
	tally.Write(s, files.Join(tempDir, countsFile), readCounts)
	rows := indexwrite.Rows(s.Scope("IndexRows"), docs, shards, cfg.indexRowOptions())
	indexwrite.WriteShards(s.Scope("WriteIndex"), rows, w, tempDir)

	if _, err := runWithProgress(ctx, p, tempDir, progressOut); err != nil {
		return nil, dir.failed(ctx, "index pipeline failed: "+jobError(err))
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
	entries, err := indexwrite.ReadEntries(ctx, tempDir)
	if err != nil {
		return nil, dir.failed(ctx, err.Error())
	}
	next := prev.Next(entries)
	if err := dir.lock.Check(ctx); err != nil {
		return nil, dir.failed(ctx, err.Error())
	}
	if err := index.Commit(ctx, cfg.Output, prev, next); err != nil {
		return nil, dir.failed(ctx, err.Error())
	}
	if err := dir.commit(ctx, nil, nil); err != nil {
		return nil, err
	}
	return &IndexResult{Manifest: next, Counts: map[string]int64{
		"documents_read": counts["documents_read"], "records_rejected": counts["records_rejected"],
	}}, nil
}
