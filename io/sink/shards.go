package sink

import (
	"context"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/layout"
	"github.com/neardup/neardup/io/source"
)

func init() {
	register.DoFn2x1[part, func(int, part), error](&shardOfFn{})
	register.DoFn4x1[context.Context, int, func(*part) bool, func(part), error](&writeShardFn{})
	register.Emitter2[int, part]()
	register.Emitter1[part]()
	register.Iter1[part]()
}

// Sharded layout: the pieces of input (pieces: read ranges of split files, whole files
// otherwise), in input order, are cut into Shards runs of consecutive pieces, and each
// run's per-piece parts become one part of each record output (layout.Part), joined by
// the worker that groups the run, in parallel with the others. With one shard per piece
// (the default) the joining is one rename per output.

// shardOf is the shard of piece seq of n, or -1 when there is no such piece.
func shardOf(seq, n, shards int) int {
	if seq < 0 || seq >= n {
		return -1
	}
	return seq * shards / n
}

// shardOfFn keys each piece's part by its shard.
type shardOfFn struct {
	Shards int
}

func (f *shardOfFn) ProcessElement(p part, emit func(int, part)) error {
	s := shardOf(p.Seq, p.Pieces, f.Shards)
	if s < 0 {
		return fmt.Errorf("write outputs: piece %d of %d of %s", p.Seq, p.Pieces, p.File)
	}
	emit(s, p)
	return nil
}

// writeShardFn joins one shard's parts, in file order, into its part of kept (or
// annotated) and removed, and passes the parts on for the rejected records and the
// report's texts.
type writeShardFn struct {
	TempDir, Format, Compress string
	Shards                    int
	Annotate                  bool
	Like                      string // an input whose schema a Parquet part without rows gets
}

func (f *writeShardFn) ProcessElement(ctx context.Context, shard int, parts func(*part) bool, emit func(part)) error {
	var all []part
	var p part
	for parts(&p) {
		all = append(all, p)
	}
	sortParts(all)
	for _, out := range f.outputs() {
		dst := files.Join(f.TempDir, layout.Part(out.name, shard, f.Shards, f.compress()))
		var err error
		if f.Format == source.FormatParquet && out.ext == ".kept" {
			err = mergeParquet(ctx, dst, all, f.Like)
		} else {
			err = concatOne(ctx, dst, all, out.has, out.ext+layout.Ext(f.compress()))
		}
		if err != nil {
			return fmt.Errorf("write part %d of %s: %w", shard, out.name, err)
		}
	}
	for _, p := range all {
		emit(p)
	}
	return nil
}

// compress is the parts' compression: none for Parquet, compressed inside.
func (f *writeShardFn) compress() string {
	if f.Format == source.FormatParquet {
		return layout.None
	}
	return f.Compress
}

// outputs are the record outputs written in parts.
func (f *writeShardFn) outputs() []output {
	outs := []output{{KeptName(f.Format), func(p part) bool { return p.Kept }, ".kept"}}
	if f.Annotate {
		return []output{{AnnotatedName(f.Format), outs[0].has, outs[0].ext}}
	}
	return append(outs, output{Removed, func(p part) bool { return p.Removed }, ".removed"})
}

// emptyShards writes the parts of the shards no part fell in, so that every part of
// every record output exists.
func (f *writeShardFn) emptyShards(ctx context.Context, parts []part) error {
	has := map[int]bool{}
	for _, p := range parts {
		has[shardOf(p.Seq, p.Pieces, f.Shards)] = true
	}
	for s := range f.Shards {
		if has[s] {
			continue
		}
		if err := f.ProcessElement(ctx, s, func(*part) bool { return false }, func(part) {}); err != nil {
			return err
		}
	}
	return nil
}
