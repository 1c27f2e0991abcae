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

// build adds the whole dedup job to s: inputs are the expanded input files, tempDir is
// where the outputs are written before the driver commits them, and the counts for
// stats.json (countsFile). docs/architecture.md draws the stages and the PCollections
// between them.
func build(s beam.Scope, cfg *Config, inputs []string, tempDir string) {
	docs, rejected, readCounts := source.Read(s, inputs, cfg.sourceConfig())
	docs = against.Prefer(s, docs, cfg.preferred)
	fo := cfg.featureOptions()
	docLocs, sets, bands, indexEdges, signCounts := features.Sign(s, docs, fo)
	docLocs, sets, bands, signCounts = against.WithIndexes(s, cfg.shardRefs(), fo, docLocs, sets, bands, signCounts)

	locs, idCheck := features.CheckUniqueIDs(s, docLocs)
	exactEdges, exactCounts := features.Collapse(s, sets)

	candidates, members, bucketCounts := buckets.Candidates(s, bands, idCheck, buckets.Options{Partitions: cfg.Partitions, MaxAll: cfg.BucketAllPairs})

	verified, near, pairCounts := pairs.Verify(s, locs, elem.Gather(s, elem.AppendEdges, candidates), members, cfg.pairsOptions())
	shown := output.WriteSimilarities(s, near, tempDir, cfg.similarityBasis(), cfg.Partitions)
	var fates, lines, clusterCounts beam.PCollection
	if cfg.isContainment() {
		fates, lines, clusterCounts = cluster.Containment(s, exactEdges, verified, cfg.Partitions)
	} else {
		fates, lines, clusterCounts = cluster.Cluster(s, beam.Flatten(s, exactEdges, verified, indexEdges),
			cluster.Options{CC: cfg.CC, Rounds: cfg.CCRounds, Partitions: cfg.Partitions, Keep: cfg.Keep})
	}
	if cluster.IsKeepField(cfg.Keep) {
		var fieldCounts beam.PCollection
		fates, lines, fieldCounts = keep.ByField(s, locs, fates, cfg.Keep, cfg.Format, cfg.Partitions)
		clusterCounts = beam.Flatten(s, clusterCounts, fieldCounts)
	}

	decisions, decideCounts := keep.Decide(s, locs, fates, shown, cfg.Against)
	if cfg.UpdateIndex {
		indexwrite.Update(s, decisions, cfg.indexWrite, cfg.indexRowOptions(), tempDir)
	}
	writeCounts := sink.Write(s, decisions, rejected, cfg.writeConfig(tempDir, inputs))
	output.WriteSorted(s.Scope("WriteClusters"), lines, cfg.clustersLayout(tempDir))
	tally.Write(s, files.Join(tempDir, countsFile), readCounts, signCounts, exactCounts, bucketCounts, pairCounts,
		clusterCounts, decideCounts, writeCounts)
}

// clustersLayout is how clusters.jsonl is written: one sorted run per partition, merged
// in the single layout, each a part of clusters/ in the sharded one. Its parts follow
// --partitions, not --shards (which counts groups of input files), so that no worker
// sorts more than a partition's share of the lines.
func (c *Config) clustersLayout(tempDir string) output.Sorted {
	o := output.Sorted{Dir: tempDir, Name: clustersFile, Parts: c.Partitions}
	if c.sharded() {
		o.Sharded, o.Compress = true, c.Compress
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

func (c *Config) sourceConfig() source.Config {
	return source.Config{Patterns: c.Inputs, Format: c.Format, IDField: c.IDField, TextField: c.TextField,
		ChunkBytes: c.InputChunkBytes, FailOnDamage: c.OnDamagedFile != damagedSkip}
}

func (c *Config) writeConfig(tempDir string, inputs []string) sink.WriteConfig {
	w := sink.WriteConfig{TempDir: tempDir, Format: c.Format, IDField: c.IDField, TextField: c.TextField, Files: inputs}
	if c.sharded() {
		w.Shards, w.Compress = c.shards, c.Compress
	}
	if c.Mode == modeAnnotate {
		w.Annotate = c.AnnotatePrefix
	}
	return w
}

func (c *Config) featureOptions() features.Options {
	return features.Options{Shingle: c.shingleConfig(), Scheme: string(c.Scheme), Seed: c.Seed, NumPerm: c.NumPerm,
		Bands: c.Bands, Rows: c.Rows, Partitions: c.Partitions, SpillDir: c.spillDir, Lookup: c.lookupRefs(),
		Containment: c.containment}
}

func (c *Config) pairsOptions() pairs.Options {
	return pairs.Options{Shingle: c.shingleConfig(), Source: c.sourceConfig(), Partitions: c.Partitions,
		Renamed: c.renamedFiles(), SpillDir: c.spillDir,
		Scheme: string(c.Scheme), Seed: c.Seed, NumPerm: c.NumPerm, Mode: c.Verify, Threshold: c.Threshold,
		Floor: c.estimateFloor(), Comparisons: c.BucketComparisons, BudgetFloor: c.bucketBudgetFloor,
		Containment: c.isContainment()}
}

func (c *Config) indexRowOptions() indexwrite.Options {
	return indexwrite.Options{Shingle: c.shingleConfig(), Source: c.sourceConfig(), SpillDir: c.spillDir}
}

// similarityBasis is what decides a pair's similarity in similarities.json.
func (c *Config) similarityBasis() string {
	if c.Verify != pairs.Exact {
		return "estimate"
	}
	return "exact"
}
