package pipeline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/neardup/neardup/pipeline/internal/indexwrite"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/io/commit"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/pipeline/internal/against"
	"github.com/neardup/neardup/pipeline/internal/features"
)

// maxIndexes bounds --against: an indexed id holds its index's ordinal in three digits.
const maxIndexes = 1000

// IndexParams are the parameters an index built or used with this configuration
// records. c must be valid (ValidateIndex).
func (c *Config) IndexParams() index.Params {
	bands, rows, _ := c.bandsRows()
	norm := "nfkc,lower,whitespace"
	if c.Normalize.StripPunct {
		norm += ",strip-punct"
	}
	return index.Params{
		NumPerm: c.NumPerm, Scheme: string(c.Scheme), Hash: string(c.Hash), Seed: c.Seed, Bands: bands, Rows: rows,
		Threshold: c.Threshold, Shingle: c.Shingle.Kind.String(), NGram: c.Shingle.N, Normalization: norm,
		MaxShingles: c.MaxShingles,
	}
}

// openIndexes reads and checks every --against index (parameters, then every file's
// checksum) and expands --prefer. A parameter mismatch is an *index.MismatchError.
func (pl *plan) openIndexes(ctx context.Context) error {
	c := &pl.cfg
	pl.indexes, pl.preferred = nil, nil
	for _, dir := range c.Against {
		m, err := openIndex(ctx, dir, c.IndexParams())
		if err != nil {
			return err
		}
		pl.indexes = append(pl.indexes, m)
	}
	if c.UpdateIndex {
		pl.indexWrite = indexwrite.NewTarget(c.Against[0], pl.indexes[0])
	}
	if len(c.Prefer) > 0 {
		list, err := files.ExpandInputs(ctx, c.Prefer)
		if err != nil {
			return fmt.Errorf("--prefer: %w", err)
		}
		pl.preferred = list
	}
	return nil
}

// openIndex checks an --against index: a format 1 index's parameters and every file's
// checksum; a format 2 index's parameters and every segment's footer and fences (the
// lookups check what they read).
func openIndex(ctx context.Context, dir string, run index.Params) (*index.Manifest, error) {
	m, err := index.ReadManifest(ctx, dir)
	if err != nil {
		return nil, err
	}
	if !m.Segmented() {
		return index.Open(ctx, dir, run)
	}
	s, err := index.OpenSegments(ctx, dir, run)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Manifest, nil
}

// lookupRefs are the --against indexes of format 2, looked up by the featurizing stage.
func (pl *plan) lookupRefs() []features.LookupRef {
	var refs []features.LookupRef
	for ord, m := range pl.indexes {
		if m.Segmented() {
			refs = append(refs, features.LookupRef{Ord: ord, Dir: pl.cfg.Against[ord], Params: m.Params, Generation: m.Generation})
		}
	}
	return refs
}

func (pl *plan) shardRefs() []against.ShardRef {
	var refs []against.ShardRef
	for ord, m := range pl.indexes {
		for _, p := range m.ShardPaths(pl.cfg.Against[ord]) {
			refs = append(refs, against.ShardRef{Ord: ord, Path: p})
		}
	}
	return refs
}

// renamedFiles maps each index shard file to its index's ordinal and each preferred input
// to -1, for the verification re-read.
func (pl *plan) renamedFiles() map[string]int {
	out := map[string]int{}
	for _, r := range pl.shardRefs() {
		out[r.Path] = r.Ord
	}
	for _, p := range pl.preferred {
		out[p] = -1
	}
	return out
}

// indexCommit prepares the commit of an --update-index run from the entries its pipeline
// wrote under the temporary directory: the index's next generation, recorded as the
// follow-up of the output commit (commit.SetFollowUp), so that the outputs and the
// index's generation are committed as one. Without --update-index, or with nothing
// kept, it records nothing.
func (pl *plan) indexCommit(ctx context.Context) error {
	c := &pl.cfg
	if !c.UpdateIndex {
		return nil
	}
	entries, err := indexwrite.ReadEntries(ctx, pl.tmp())
	if err != nil {
		return err
	}
	prev := pl.indexes[0]
	var next *index.Manifest
	if prev.Segmented() {
		if len(entries) == 0 {
			return nil // nothing kept: no new segment
		}
		e := entries[0]
		seg := index.SegmentEntry{Path: e.Path, Documents: e.Rows, Shingles: e.Shingles, Bytes: e.Bytes, SHA256: e.SHA256}
		if next, err = index.PrepareSegment(ctx, c.Against[0], prev, seg); err != nil {
			return err
		}
	} else {
		next = prev.Next(entries)
	}
	b, err := json.Marshal(indexFollowUp{Dir: c.Against[0], Prev: prev, Next: next})
	if err != nil {
		return err
	}
	return commit.SetFollowUp(ctx, pl.tmp(), indexFollowUpKind, fmt.Sprintf("generation %d of index %s", next.Generation, c.Against[0]), b)
}

// indexFollowUp is an --update-index run's index commit, run with its output commit.
type indexFollowUp struct {
	Dir        string
	Prev, Next *index.Manifest
}

const indexFollowUpKind = "index-generation"

func init() {
	commit.Handle(indexFollowUpKind, func(ctx context.Context, data []byte) error {
		var f indexFollowUp
		if err := json.Unmarshal(data, &f); err != nil || f.Prev == nil || f.Next == nil {
			return fmt.Errorf("not an index commit: %v", err)
		}
		return index.CommitOnce(ctx, f.Dir, f.Prev, f.Next)
	})
}
