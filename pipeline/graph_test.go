package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/stretchr/testify/assert"
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

// boundedKeyers are the steps whose one-key groups are allowed whatever they gather,
// with why one worker holds what the group asks of it.
var boundedKeyers = map[string]string{
	"pipeline/internal/cluster.localEdges": "--cc local: each element is a batch of at most elem.ShuffleBytes of edges " +
		"(TestLocalEdgesBounded), streamed by the union-find, which holds a node per clustered document; " +
		"--cc auto picks it on a cluster runner only when the inputs' documents fit ccWorkerBytes (TestCCAutoOnClusterRunner)",
}

// oneKeyGroups walks the built graph of a pipeline and describes every GroupByKey or
// CoGroupByKey that gathers under one key (onekey) a collection not in boundedOrigins,
// by a step not in allowed, and every side input, which one worker holds whole.
func oneKeyGroups(t *testing.T, p *beam.Pipeline, allowed map[string]string) []string {
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
					if _, ok := allowed[shortName(k.Name())]; ok {
						continue
					}
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
	require.NoError(t, pl.resolveCC(context.Background()))
	p, s := beam.NewPipelineWithRoot()
	pl.build(s)
	return p
}

// onCluster makes the test's plans those of a cluster runner: the workers are not in
// this process (workersInProcess).
func onCluster(t *testing.T) {
	endpoint, env := *jobopts.Endpoint, *jobopts.EnvironmentType
	*jobopts.Endpoint, *jobopts.EnvironmentType = "localhost:8099", "PROCESS"
	t.Cleanup(func() { *jobopts.Endpoint, *jobopts.EnvironmentType = endpoint, env })
	require.False(t, workersInProcess())
}

// TestNoGroupGrowsInOneWorker: nothing that grows with the corpus is gathered under one
// key or passed as a side input, in the configurations a cluster-sized corpus runs, and
// in the default of a cluster runner's small one (--cc auto: local).
func TestNoGroupGrowsInOneWorker(t *testing.T) {
	onCluster(t)
	for _, tc := range []struct {
		name string
		edit func(*Config)
	}{
		{"default", func(c *Config) { c.CC = CCAuto }},
		{"distributed", func(*Config) {}},
		{"annotate", func(c *Config) { c.Mode = ModeAnnotate }},
		{"keep-field", func(c *Config) { c.Keep = "field:score:max" }},
		{"sharded", func(c *Config) { c.Layout, c.Shards, c.Compress = "sharded", 1, "zstd" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.CC = cluster.Distributed
			tc.edit(&cfg)
			for _, f := range oneKeyGroups(t, graphFor(t, cfg), boundedKeyers) {
				t.Error(f)
			}
		})
	}
}

// TestOneKeyGroupsAreFound: the walk sees through the graph: --cc local, which gathers
// every edge in one worker by design, is reported when not allowed, with the steps whose
// edges it gathers.
func TestOneKeyGroupsAreFound(t *testing.T) {
	cfg := DefaultConfig()
	cfg.CC = cluster.Local
	found := strings.Join(oneKeyGroups(t, graphFor(t, cfg), nil), "\n")
	for _, want := range []string{"features.collapseFn#0", "pairs.checkPairsFn#0"} {
		if !strings.Contains(found, "cluster.Cluster groups under one key (pipeline/internal/cluster.localEdges)") || !strings.Contains(found, want) {
			t.Errorf("--cc local: no one-key group of %s reported; found:\n%s", want, found)
		}
	}
}

// TestCCAutoOnClusterRunner: on a cluster runner --cc auto labels a small input's
// clusters in one worker, with no large-star/small-star rounds in the graph, and a
// large input's with them.
func TestCCAutoOnClusterRunner(t *testing.T) {
	onCluster(t)
	rounds := func(p *beam.Pipeline) int {
		edges, _, err := p.Build()
		require.NoError(t, err)
		n := 0
		for _, e := range edges {
			if strings.Contains(e.Name(), "connectedcomponents.") {
				n++
			}
		}
		return n
	}
	cfg := DefaultConfig()
	small := graphFor(t, cfg)
	assert.Zero(t, rounds(small), "steps of connectedcomponents in a small input's graph")
	assert.NotEmpty(t, oneKeyGroups(t, small, nil), "the edges gathered under one key")

	// A sparse file as large as ccWorkerBytes' documents at its mean record.
	big := filepath.Join(t.TempDir(), "big.jsonl")
	line := `{"id":"a","text":"one two three four five six"}` + "\n"
	require.NoError(t, os.WriteFile(big, []byte(line), 0o644))
	docs := ccWorkerBytes/(ccNodeBytes+meanIDBytes) + 1
	require.NoError(t, os.Truncate(big, int64(docs*len(line))))
	pl := &plan{cfg: cfg, inputs: []string{big}, format: FormatJSONL}
	require.NoError(t, pl.resolveCC(context.Background()))
	assert.Equal(t, CCDistributed, pl.cc, "--cc auto on %d documents", docs)
	pl = &plan{cfg: cfg, inputs: []string{filepath.Join(repotest.Root(t), "testdata", "seed.jsonl")}, format: FormatJSONL}
	require.NoError(t, pl.resolveCC(context.Background()))
	assert.Equal(t, CCLocal, pl.cc, "--cc auto on the seed corpus")
}
