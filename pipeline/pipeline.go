package pipeline

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/sink"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/pipeline/internal/against"
	"github.com/neardup/neardup/pipeline/internal/buckets"
	"github.com/neardup/neardup/pipeline/internal/cluster"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/features"
	"github.com/neardup/neardup/pipeline/internal/indexwrite"
	"github.com/neardup/neardup/pipeline/internal/keep"
	"github.com/neardup/neardup/pipeline/internal/output"
	"github.com/neardup/neardup/pipeline/internal/pairs"
	"github.com/neardup/neardup/shingleset"
)

// build adds the whole dedup job to s, from the plan alone: the outputs are written in
// the run's temporary directory, which the driver then commits, and the counts for
// stats.json beside them (countsFile). docs/architecture.md draws the stages and the
// PCollections between them.
func (pl *plan) build(s beam.Scope) {
	cfg, tempDir := &pl.cfg, pl.tmp()
	read := source.ReadStages(s, pl.inputs, pl.sourceConfig())
	docs := against.Prefer(s, read.Docs, pl.preferred)
	fo := pl.featureOptions()
	signed := features.Sign(s, docs, fo)
	// The first stage's one output, gathered once: see elem.First.
	first := elem.SplitFirst(s, against.WithIndexes(s, pl.shardRefs(), fo,
		features.Signed{First: elem.FirstOf(s, signed.First, read.Rejected, read.Counts, cfg.Partitions), Indexed: signed.Indexed}).First)
	rejected := first.Rejected

	locs := features.CheckUniqueIDs(s, first.Locs)
	exactEdges, exactCounts := features.Collapse(s, first.Sets)

	candidates, members, bucketCounts := buckets.Candidates(s, first.Bands, buckets.Options{Partitions: cfg.Partitions, MaxAll: cfg.BucketAllPairs, Containment: pl.containment, SpillDir: pl.spillDir})

	verified, near, pairCounts := pairs.Verify(s, locs, elem.Gather[elem.Edge](s, candidates), members, pl.pairsOptions())
	shown := output.WriteSimilarities(s, near, tempDir, cfg.similarityBasis(), cfg.Partitions)
	var fates, lines, clusterCounts beam.PCollection
	if cfg.isContainment() {
		fates, lines, clusterCounts = cluster.Containment(s, exactEdges, verified, cfg.Partitions)
	} else {
		edges := []beam.PCollection{exactEdges, verified}
		if signed.Indexed.IsValid() {
			edges = append(edges, signed.Indexed)
		}
		fates, lines, clusterCounts = cluster.Cluster(s, beam.Flatten(s, edges...),
			cluster.Options{CC: string(pl.cc), Rounds: cfg.CCRounds, Partitions: cfg.Partitions, Keep: string(cfg.Keep)})
	}
	if cluster.IsKeepField(string(cfg.Keep)) {
		var fieldCounts beam.PCollection
		fates, lines, fieldCounts = keep.ByField(s, locs, fates, string(cfg.Keep), string(pl.format), cfg.Partitions, cfg.MaxRecordBytes)
		clusterCounts = beam.Flatten(s, clusterCounts, fieldCounts)
	}

	decisions := keep.Decide(s, locs, fates, shown, cfg.Against)
	if cfg.UpdateIndex {
		indexwrite.Update(s, decisions, pl.indexWrite, pl.indexRowOptions(), tempDir)
	}
	writeCounts := sink.Write(s, decisions, rejected, read.Ranges, pl.writeConfig())
	output.WriteSorted(s, lines, pl.clustersLayout())
	tally.Write(s, files.Join(tempDir, countsFile), read.SplitCounts, first.Counts, exactCounts, bucketCounts, pairCounts,
		clusterCounts, writeCounts)
}

// clustersLayout is how clusters.jsonl is written: one sorted run per partition, merged
// in the single layout, each a part of clusters/ in the sharded one. Its parts follow
// --partitions, not --shards (which counts groups of input files), so that no worker
// sorts more than a partition's share of the lines.
func (pl *plan) clustersLayout() output.Sorted {
	o := output.Sorted{Dir: pl.tmp(), Name: clustersFile, Parts: pl.cfg.Partitions}
	if pl.sharded() {
		o.Sharded, o.Compress = true, string(pl.cfg.Compress)
	}
	return o
}

// countsFile is where build leaves the run's counts in its temporary directory.
const countsFile = "counts.json"

// Shingler shingles texts exactly as dedup run with this configuration signs and
// verifies them: whole sets, whatever MaxShingles (which caps only index rows).
func (c *Config) Shingler() (*shingleset.Shingler, error) { return c.shingleConfig().Full().Shingler() }

func (c *Config) shingleConfig() shingleset.Config {
	return shingleset.Config{Kind: c.Shingle.Kind.String(), N: c.Shingle.N, StripPunct: c.Normalize.StripPunct,
		Hash: string(c.Hash), MaxShingles: c.MaxShingles}
}

// sourceConfig is how the inputs are read, as format.
func (c *Config) sourceConfig(format Format) source.Config {
	return source.Config{Patterns: c.Inputs, Format: string(format), IDField: c.IDField, TextField: c.TextField,
		ChunkBytes: c.InputChunkBytes, FailOnDamage: c.OnDamagedFile != DamagedSkip, MaxRecordBytes: c.MaxRecordBytes}
}

func (pl *plan) sourceConfig() source.Config { return pl.cfg.sourceConfig(pl.format) }

func (pl *plan) writeConfig() sink.WriteConfig {
	c := &pl.cfg
	w := sink.WriteConfig{TempDir: pl.tmp(), Format: string(pl.format), IDField: c.IDField, TextField: c.TextField, Files: pl.inputs,
		MaxRecordBytes: c.MaxRecordBytes}
	if pl.sharded() {
		w.Shards, w.Compress = pl.shards, string(c.Compress)
	}
	if c.Mode == ModeAnnotate {
		w.Annotate = c.AnnotatePrefix
	}
	return w
}

func (pl *plan) featureOptions() features.Options {
	c := &pl.cfg
	return features.Options{Shingle: c.shingleConfig(), Scheme: string(c.Scheme), Seed: c.Seed, NumPerm: c.NumPerm,
		Bands: pl.bands, Rows: pl.rows, Partitions: c.Partitions, SpillDir: pl.spillDir, Lookup: pl.lookupRefs(),
		Containment: pl.containment}
}

func (pl *plan) pairsOptions() pairs.Options {
	c := &pl.cfg
	return pairs.Options{Shingle: c.shingleConfig(), Source: pl.sourceConfig(), Partitions: c.Partitions,
		Renamed: pl.renamedFiles(), SpillDir: pl.spillDir,
		Scheme: string(c.Scheme), Seed: c.Seed, NumPerm: c.NumPerm, Mode: string(c.Verify), Threshold: c.Threshold,
		Floor: c.estimateFloor(), Comparisons: c.BucketComparisons, BudgetFloor: c.bucketBudgetFloor,
		Containment: c.isContainment()}
}

func (pl *plan) indexRowOptions() indexwrite.Options {
	return indexwrite.Options{Shingle: pl.cfg.shingleConfig(), Source: pl.sourceConfig(), SpillDir: pl.spillDir}
}

// similarityBasis is what decides a pair's similarity in similarities.json.
func (c *Config) similarityBasis() string {
	if c.Verify != VerifyExact {
		return "estimate"
	}
	return "exact"
}
