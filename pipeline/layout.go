package pipeline

import (
	"context"
	"fmt"

	"github.com/neardup/neardup/io/layout"
	"github.com/neardup/neardup/io/sink"
	"github.com/neardup/neardup/io/source"
)

// Output layouts (--layout, --shards, --compress; docs/outputs.md). In the single
// layout each record output and clusters.jsonl is one file. In the sharded layout each
// is a directory of parts, layout.Part names: the record outputs' parts are groups of
// consecutive pieces of input (the ranges a split file is read in, whole files
// otherwise; one piece each by default) written where they are routed, and
// clusters.jsonl's are hash partitions of the cluster ids, each in id order; nothing is
// joined. rejected.jsonl, similarities.json, report.html and stats.json stay files.

// resolveLayout fixes the layout and part count of the run: auto is single when the
// workers run in this process (the embedded runner, LOOPBACK), where one file costs
// nothing; sharded otherwise. In the sharded layout --shards may not exceed the pieces
// of input: a part holds whole pieces, so every part past them would be empty (and a
// million of them take the job minutes to write). --compress asks for compressed
// parts, so auto is sharded when it is given.
func (pl *plan) resolveLayout(ctx context.Context) error {
	pl.layout = Layout(layout.Resolve(string(pl.cfg.Layout), workersInProcess() && pl.cfg.Compress == CompressNone, true))
	pl.shards = pl.cfg.Shards
	if !pl.sharded() {
		return nil
	}
	pieces, err := pl.pieces(ctx)
	if err != nil {
		return err
	}
	if pl.shards == 0 {
		pl.shards = pieces
	}
	if pl.shards > pieces {
		return fmt.Errorf("--shards %d: more than the %d piece(s) the input is read in (%d file(s); an uncompressed JSONL or text file is read in ranges of %s, any other file whole); a part holds whole pieces, so the parts past them would all be empty: give at most %d",
			pl.shards, pieces, len(pl.inputs), byteSize(pl.chunkBytes()), pieces)
	}
	return nil
}

// pieces counts the pieces the sink writes the inputs in (sink.Write): one per read
// range of an uncompressed JSONL or text file (source.SplitFile), one per other file;
// at least one, so that an empty input still has a part.
func (pl *plan) pieces(ctx context.Context) (int, error) {
	n := 0
	for _, f := range pl.inputs {
		if !source.Splittable(f, string(pl.format)) {
			n++
			continue
		}
		size, err := source.Size(ctx, f)
		if err != nil {
			return 0, fmt.Errorf("--input: %w", err)
		}
		n += len(source.SplitFile(f, string(pl.format), size, pl.chunkBytes()))
	}
	return max(n, 1), nil
}

func (pl *plan) chunkBytes() int64 {
	if pl.cfg.InputChunkBytes > 0 {
		return pl.cfg.InputChunkBytes
	}
	return source.DefaultChunkBytes
}

// What --cc auto lets the union-find of --cc local hold on a cluster runner. It streams
// the edges and holds a node per clustered document: its id (meanIDBytes assumed, as the
// disk estimate does) and ccNodeBytes besides (an index entry, a member with its length
// and best similarity, a forest slot, its place in its cluster's list), at most one per
// document of the input and the --against indexes. ccWorkerBytes is the share of one
// SDK worker's memory that may take: about a quarter of the smallest worker machine
// (Dataflow's n1-standard-1).
const (
	ccNodeBytes   = 256
	ccWorkerBytes = 1 << 30
)

// resolveCC turns CCAuto into the algorithm the run uses: local when the workers run in
// this process, where the edges are in its memory anyway; on a cluster runner, local
// when the union-find's nodes fit ccWorkerBytes for as many documents as the inputs
// hold, else distributed, whose workers hold one partition's edges at a time.
// Containment pairs are decided in one worker, so --measure containment is local.
func (pl *plan) resolveCC(ctx context.Context) error {
	pl.cc = pl.cfg.CC
	if pl.cc != CCAuto {
		return nil
	}
	pl.cc = CCLocal
	if workersInProcess() || pl.cfg.isContainment() {
		return nil
	}
	sz, err := pl.measureInputs(ctx)
	if err != nil {
		return fmt.Errorf("--input: %w", err)
	}
	docs := sz.docs()
	for _, m := range pl.indexes {
		docs += float64(m.Documents)
	}
	if docs*(ccNodeBytes+meanIDBytes) > ccWorkerBytes {
		pl.cc = CCDistributed
	}
	return nil
}

func (pl *plan) sharded() bool { return pl.layout == LayoutSharded }

// committed turns the names of single files into what the run commits: in the sharded
// layout, the record outputs and clusters.jsonl are directories of parts.
func (pl *plan) committed(names []string) []string {
	if !pl.sharded() {
		return names
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if shardable(n) {
			out[i] = layout.Dir(n)
		}
	}
	return out
}

// shardable reports whether the output name is written in parts in the sharded layout.
func shardable(name string) bool {
	if name == clustersFile {
		return true
	}
	for _, n := range sink.AllOutputNames() {
		if n == name && n != sink.Rejected {
			return true
		}
	}
	return false
}

// shardedOutputs are the directories any sharded run may write, for --overwrite to
// replace.
func shardedOutputs() []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range append(sink.AllOutputNames(), clustersFile) {
		if d := layout.Dir(n); shardable(n) && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}
