package pipeline

import (
	"fmt"

	"github.com/neardup/neardup/io/layout"
	"github.com/neardup/neardup/io/sink"
)

// Output layouts (--layout, --shards, --compress; docs/outputs.md). In the single
// layout each record output and clusters.jsonl is one file. In the sharded layout each
// is a directory of parts, layout.Part names: the record outputs' parts are groups of
// consecutive input files (one each by default) written where they are routed, and
// clusters.jsonl's are hash partitions of the cluster ids, each in id order; nothing is
// joined. rejected.jsonl, similarities.json, report.html and stats.json stay files.

// resolveLayout fixes the layout and part count of the run: auto is single when the
// workers run in this process (the embedded runner, LOOPBACK), where one file costs
// nothing; sharded otherwise. In the sharded layout --shards may not exceed the input
// files: a part holds whole input files, so every part past them would be empty (and a
// million of them take the job minutes to write). --compress asks for compressed
// parts, so auto is sharded when it is given.
func (pl *plan) resolveLayout() error {
	pl.layout = Layout(layout.Resolve(string(pl.cfg.Layout), workersInProcess() && pl.cfg.Compress == CompressNone, true))
	pl.shards = pl.cfg.Shards
	files := max(1, len(pl.inputs))
	if pl.shards == 0 {
		pl.shards = files
	}
	if pl.sharded() && pl.shards > files {
		return fmt.Errorf("--shards %d: more than the %d input file(s); a part holds whole input files, so the parts past them would all be empty: give at most %d, or split the input into more files",
			pl.shards, len(pl.inputs), files)
	}
	return nil
}

// resolveCC turns CCAuto into the algorithm the run uses. Containment pairs are decided
// in one worker, so --measure containment is local.
func (pl *plan) resolveCC() {
	pl.cc = pl.cfg.CC
	if pl.cc != CCAuto {
		return
	}
	pl.cc = CCDistributed
	if workersInProcess() || pl.cfg.isContainment() {
		pl.cc = CCLocal
	}
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
