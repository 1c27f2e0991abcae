package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/onekey"
	"github.com/neardup/neardup/internal/repotest"
	"github.com/neardup/neardup/pipeline/internal/cluster"
)

// boundedOrigins are the collections a group under one key may gather, named as
// origins names them, with why each does not grow with the corpus.
var boundedOrigins = map[string]string{
	"Impulse": "one element",
	// The counts a final step emits when it has run: one per run of the step, and
	// the steps run once per group below.
	"pipeline/internal/output.finishSortedFn#0": "one count: the step runs once",
	"io/sink.concatFn#0":                        "one count: the step runs once",
	// One element per partition of a sorted output, or per input file: a number of
	// small records fixed by flags and inputs, never by the documents.
	"pipeline/internal/output.writeRunFn#0": "one partition number per written partition (--partitions or --shards)",
	"io/sink.writePartFn#0":                 "one small record (names, counts) per piece of input",
	"io/sink.writeWholeFn#0":                "one small record (names, counts) per input file",
	"io/sink.writeShardFn#0":                "one small record (names, counts) per piece of input",
	// The byte ranges split inputs are read in, which the sink's keying and writing take
	// as a side input: one per --input chunk of a split file's bytes.
	"io/sink.splitRanges#0":             "one source.Range per read range of a split input file",
	"pipeline/internal/output.nearOf#0": "the one merged NearBatch: bin counts and the pairs nearest the threshold",
	// The run's counts: one total per count name, after a per-name combine.
	"internal/tally.dropName#0": "one tally.Count per count name",
	"internal/tally.writeFn#0":  "one count: the step runs once",
}

// boundedCombiners are the combiners whose accumulator stays one small value however
// many elements a group under one key has; the runner lifts them before the shuffle.
var boundedCombiners = map[string]string{
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats.sumInt64Fn": "a sum",
	"pipeline/internal/output.mergeNear":                                     "bin counts and at most elem.NearPairs pairs a side",
}

// oneKeyGroups walks the built graph of a pipeline and describes every GroupByKey or
// CoGroupByKey that gathers under one key (onekey) a collection not in boundedOrigins,
// and every side input, which one worker holds whole.
func oneKeyGroups(t *testing.T, p *beam.Pipeline) []string {
	edges, _, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	type out struct {
		edge *graph.MultiEdge
		i    int
	}
	producer := map[*graph.Node]out{}
	consumers := map[*graph.Node][]*graph.MultiEdge{}
	for _, e := range edges {
		for i, o := range e.Output {
			producer[o.To] = out{e, i}
		}
		for _, in := range e.Input {
			consumers[in.From] = append(consumers[in.From], e)
		}
	}
	// keyers lists the steps that put the elements of n under one key.
	var keyers func(n *graph.Node) []*graph.MultiEdge
	keyers = func(n *graph.Node) []*graph.MultiEdge {
		o, ok := producer[n]
		if !ok {
			return nil
		}
		e := o.edge
		switch e.Op {
		case graph.ParDo:
			if onekey.Keyed(e.DoFn.Name(), o.i) {
				return []*graph.MultiEdge{e}
			}
		case graph.Flatten, graph.Combine, graph.CoGBK, graph.Reshuffle:
			var all []*graph.MultiEdge
			for _, in := range e.Input {
				all = append(all, keyers(in.From)...)
			}
			return all
		}
		return nil
	}
	// origins names the steps that made n, through flattens.
	var origins func(n *graph.Node) []string
	origins = func(n *graph.Node) []string {
		o, ok := producer[n]
		if !ok {
			return []string{"?"}
		}
		switch o.edge.Op {
		case graph.Flatten:
			var all []string
			for _, in := range o.edge.Input {
				all = append(all, origins(in.From)...)
			}
			return all
		case graph.Impulse:
			return []string{"Impulse"}
		}
		return []string{fmt.Sprintf("%s#%d", shortName(o.edge.Name()), o.i)}
	}
	unbounded := func(names []string) []string {
		var bad []string
		for _, n := range names {
			if _, ok := boundedOrigins[n]; !ok {
				bad = append(bad, n)
			}
		}
		return bad
	}
	var found []string
	for _, e := range edges {
		switch e.Op {
		case graph.CoGBK:
			if cs := consumers[e.Output[0].To]; len(cs) == 1 && cs[0].Op == graph.Combine {
				if _, ok := boundedCombiners[shortName(cs[0].Name())]; ok {
					continue
				}
			}
			for _, in := range e.Input {
				for _, k := range keyers(in.From) {
					if bad := unbounded(origins(k.Input[0].From)); len(bad) > 0 {
						found = append(found, fmt.Sprintf("%s groups under one key (%s) %v", e.Scope(), shortName(k.Name()), bad))
					}
				}
			}
		case graph.ParDo:
			for _, in := range e.Input[1:] {
				if bad := unbounded(origins(in.From)); len(bad) > 0 {
					found = append(found, fmt.Sprintf("%s takes a side input (%s) of %v", e.Scope(), in.Kind, bad))
				}
			}
		}
	}
	slices.Sort(found)
	return slices.Compact(found)
}

// shortName drops the module path from a DoFn's or combiner's name.
func shortName(name string) string {
	return strings.ReplaceAll(name, "github.com/neardup/neardup/", "")
}

// graphFor builds the dedup graph of cfg, without running it.
func graphFor(t *testing.T, cfg Config) *beam.Pipeline {
	t.Helper()
	cfg.Inputs = []string{filepath.Join(repotest.Root(t), "testdata", "seed.jsonl")}
	cfg.Output = t.TempDir()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	pl := &plan{cfg: cfg, inputs: cfg.Inputs, format: FormatJSONL, dir: &runDir{tmp: filepath.Join(cfg.Output, ".tmp")}}
	require.NoError(t, pl.chooseBanding())
	require.NoError(t, pl.resolveLayout(context.Background()))
	pl.resolveCC()
	p, s := beam.NewPipelineWithRoot()
	pl.build(s)
	return p
}

// TestNoGroupGrowsInOneWorker: nothing that grows with the corpus is gathered under one
// key or passed as a side input, in the configurations a cluster-sized corpus runs.
func TestNoGroupGrowsInOneWorker(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
	}{
		{"default", func(*Config) {}},
		{"annotate", func(c *Config) { c.Mode = ModeAnnotate }},
		{"keep-field", func(c *Config) { c.Keep = "field:score:max" }},
		{"sharded", func(c *Config) { c.Layout, c.Shards, c.Compress = "sharded", 1, "zstd" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.CC = cluster.Distributed
			tc.edit(&cfg)
			for _, f := range oneKeyGroups(t, graphFor(t, cfg)) {
				t.Error(f)
			}
		})
	}
}

// TestOneKeyGroupsAreFound: the walk sees through the graph: --cc local, which gathers
// every edge in one worker by design, is reported, with the steps whose edges it gathers.
func TestOneKeyGroupsAreFound(t *testing.T) {
	cfg := DefaultConfig()
	cfg.CC = cluster.Local
	found := strings.Join(oneKeyGroups(t, graphFor(t, cfg)), "\n")
	for _, want := range []string{"features.collapseFn", "pairs.checkPairsFn"} {
		if !strings.Contains(found, "Cluster/CombinePerKey groups under one key ("+"pipeline/internal/"+want+")") {
			t.Errorf("--cc local: no one-key group of %s reported; found:\n%s", want, found)
		}
	}
}
