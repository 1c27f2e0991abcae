package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/pipeline/internal/indexwrite"
)

// IndexResult is what BuildIndex reports.
type IndexResult struct {
	Manifest *index.Manifest
	Counts   map[string]int64 // documents_read, records_rejected
}

// ValidateIndex checks the settings an index build uses (what is read, where it goes,
// and the method), without I/O and without changing c; the dedup-only settings are not
// looked at.
func (c *Config) ValidateIndex() error {
	return errors.Join(append(c.checkReading(), c.checkMethod()...)...)
}

// BuildIndex indexes every document of cfg.Inputs (no deduplication) into a new index at
// cfg.Output with the given shard count, as generation 1, through the same plan, execute
// and commit as Run. Records that cannot be read are counted, not indexed. An existing
// index is refused: add to it with dedup --update-index.
func BuildIndex(ctx context.Context, cfg Config, shards int, progressOut io.Writer) (*IndexResult, error) {
	if err := cfg.ValidateIndex(); err != nil {
		return nil, UsageError{err}
	}
	if shards < 1 {
		return nil, UsageError{fmt.Errorf("--shards: must be at least 1, got %d", shards)}
	}
	pl, err := planIndex(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer pl.close()
	prev := index.New(cfg.IndexParams(), shards)
	w := indexwrite.NewTarget(cfg.Output, prev)
	_, counts, err := pl.execute(ctx, func(s beam.Scope) {
		docs, _, readCounts := source.Read(s, pl.inputs, pl.sourceConfig())
		tally.Write(s, files.Join(pl.tmp(), countsFile), readCounts)
		rows := indexwrite.Rows(s, docs, shards, pl.indexRowOptions())
		indexwrite.WriteShards(s, rows, w, pl.tmp())
	}, progressOut)
	if err != nil {
		return nil, err
	}
	entries, err := indexwrite.ReadEntries(ctx, pl.tmp())
	if err != nil {
		return nil, pl.dir.failed(ctx, err.Error())
	}
	next := prev.Next(entries)
	if err := pl.dir.lock.Check(ctx); err != nil {
		return nil, pl.dir.failed(ctx, err.Error())
	}
	if err := index.Commit(ctx, cfg.Output, prev, next); err != nil {
		return nil, pl.dir.failed(ctx, err.Error())
	}
	if err := pl.dir.commit(ctx, nil, nil); err != nil {
		return nil, err
	}
	return &IndexResult{Manifest: next, Counts: map[string]int64{
		"documents_read": counts["documents_read"], "records_rejected": counts["records_rejected"],
	}}, nil
}
