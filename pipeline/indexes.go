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

// IndexParams are the parameters an index built or used with this configuration records.
func (c *Config) IndexParams() index.Params {
	norm := "nfkc,lower,whitespace"
	if c.Normalize.StripPunct {
		norm += ",strip-punct"
	}
	return index.Params{
		NumPerm: c.NumPerm, Scheme: string(c.Scheme), Hash: string(c.Hash), Seed: c.Seed, Bands: c.Bands, Rows: c.Rows,
		Threshold: c.Threshold, Shingle: c.Shingle.Kind.String(), NGram: c.Shingle.N, Normalization: norm,
		MaxShingles: c.MaxShingles,
	}
}

// OpenIndexes reads and checks every --against index (parameters, then every file's
// checksum) and expands --prefer, before any pipeline is built. A parameter mismatch is
// an *index.MismatchError. cfg must be validated.
func (c *Config) OpenIndexes(ctx context.Context) error {
	if len(c.Against) > maxIndexes {
		return fmt.Errorf("--against: at most %d indexes, got %d", maxIndexes, len(c.Against))
	}
	if c.UpdateIndex && len(c.Against) != 1 {
		return fmt.Errorf("--update-index: needs exactly one --against index to update, got %d", len(c.Against))
	}
	c.indexes = c.indexes[:0]
	for _, dir := range c.Against {
		m, err := openIndex(ctx, dir, c.IndexParams())
		if err != nil {
			return err
		}
		c.indexes = append(c.indexes, m)
	}
	if c.UpdateIndex {
		c.indexWrite = indexwrite.NewTarget(c.Against[0], c.indexes[0])
	}
	c.preferred = nil
	if len(c.Prefer) > 0 {
		list, err := files.Expand(ctx, c.Prefer)
		if err != nil {
			return fmt.Errorf("--prefer: %w", err)
		}
		c.preferred = list
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
func (c *Config) lookupRefs() []features.LookupRef {
	var refs []features.LookupRef
	for ord, m := range c.indexes {
		if m.Segmented() {
			refs = append(refs, features.LookupRef{Ord: ord, Dir: c.Against[ord], Params: m.Params, Generation: m.Generation})
		}
	}
	return refs
}

func (c *Config) shardRefs() []against.ShardRef {
	var refs []against.ShardRef
	for ord, m := range c.indexes {
		for _, p := range m.ShardPaths(c.Against[ord]) {
			refs = append(refs, against.ShardRef{Ord: ord, Path: p})
		}
	}
	return refs
}

// renamedFiles maps each index shard file to its index's ordinal and each preferred input
// to -1, for the verification re-read.
func (c *Config) renamedFiles() map[string]int {
	out := map[string]int{}
	for _, r := range c.shardRefs() {
		out[r.Path] = r.Ord
	}
	for _, p := range c.preferred {
		out[p] = -1
	}
	return out
}

// indexCommit prepares the commit of an --update-index run from the entries its pipeline
// wrote under tempDir: the index's next generation, recorded as the follow-up of the
// output commit (commit.SetFollowUp), so that the outputs and the index's generation are
// committed as one. Without --update-index, or with nothing kept, it records nothing.
func (c *Config) indexCommit(ctx context.Context, tempDir string) error {
	if !c.UpdateIndex {
		return nil
	}
	entries, err := indexwrite.ReadEntries(ctx, tempDir)
	if err != nil {
		return err
	}
	prev := c.indexes[0]
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
	return commit.SetFollowUp(ctx, tempDir, indexFollowUpKind, fmt.Sprintf("generation %d of index %s", next.Generation, c.Against[0]), b)
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
