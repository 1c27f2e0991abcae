package pipeline

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/io/sink"
	"github.com/neardup/neardup/io/source"
)

const metricsNS = "neardup"

// Build adds the whole dedup job to s: the files are the expanded inputs, tempDir is
// where the outputs are written before the driver commits them.
func Build(s beam.Scope, cfg *Config, files []string, tempDir string) {
	docs, rejected := source.Read(s, files, cfg.sourceConfig())
	docs = withPreferred(s, docs, cfg)
	locate := &locateFn{Partitions: cfg.Partitions}
	featurize := &featurizeFn{
		Shingle: cfg.shingleConfig(), Scheme: string(cfg.Scheme), Seed: cfg.Seed, NumPerm: cfg.NumPerm,
		Bands: cfg.Bands, Rows: cfg.Rows, Partitions: cfg.Partitions, SpillDir: cfg.spillDir,
	}
	sets, bands := beam.ParDo2(s.Scope("ShingleSign"), featurize, docs)
	docLocs := beam.ParDo(s.Scope("Locate"), locate, docs)
	docLocs, sets, bands = withIndexes(s, cfg, locate, featurize, docLocs, sets, bands)

	s1 := s.Scope("CheckUniqueIDs")
	locs, idCheck := beam.ParDo2(s1, checkUniqueIDs, gather(s1, appendLocs, docLocs))

	s2 := s.Scope("CollapseExactDuplicates")
	exactEdges := beam.ParDo(s2, collapseFn{}, gather(s2, appendSets, sets))

	candidates, members := LSHBuckets(s, bands, idCheck, cfg)

	verified, near := Verify(s, locs, gather(s, appendEdges, candidates), members, cfg)
	shown := writeSimilarities(s, near, tempDir, cfg)
	fates, lines := Cluster(s, beam.Flatten(s, exactEdges, verified), cfg)
	if IsKeepField(cfg.Keep) {
		fates, lines = KeepByField(s, locs, fates, cfg)
	}

	decisions := beam.ParDo(s.Scope("Decide"), decideFn{Indexes: cfg.Against}, beam.CoGroupByKey(s, locs, fates, shown))
	if cfg.UpdateIndex {
		updateIndex(s, decisions, cfg, tempDir)
	}
	sink.Write(s, decisions, rejected, cfg.writeConfig(tempDir))
	writeSorted(s.Scope("WriteClusters"), lines, tempDir, ClustersFile)
}

// Shingler shingles texts exactly as the pipeline run with this configuration does.
func (c *Config) Shingler() (*Shingler, error) { return c.shingleConfig().Shingler() }

func (c *Config) shingleConfig() ShingleConfig {
	return ShingleConfig{Kind: c.Shingle.Kind.String(), N: c.Shingle.N, StripPunct: c.Normalize.StripPunct,
		Hash: string(c.Hash), MaxShingles: c.MaxShingles}
}

func (c *Config) sourceConfig() source.Config {
	return source.Config{Patterns: c.Inputs, Format: c.Format, IDField: c.IDField, TextField: c.TextField,
		ChunkBytes: c.InputChunkBytes, FailOnDamage: c.OnDamagedFile != DamagedSkip}
}

func (c *Config) writeConfig(tempDir string) sink.WriteConfig {
	w := sink.WriteConfig{TempDir: tempDir, Format: c.Format, IDField: c.IDField, TextField: c.TextField}
	if c.Mode == ModeAnnotate {
		w.Annotate = c.AnnotatePrefix
	}
	return w
}
