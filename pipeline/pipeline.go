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

	locs := beam.ParDo(s, locate, docs)
	idCheck := beam.ParDo(s.Scope("CheckUniqueIDs"), checkUniqueID, beam.GroupByKey(s, locs))

	features := beam.ParDo(s.Scope("Shingle"), &featurizeFn{
		StripPunct: cfg.Normalize.StripPunct, Kind: cfg.Shingle.Kind.String(), N: cfg.Shingle.N, Hash: string(cfg.Hash),
	}, docs, beam.SideInput{Input: idCheck})

	s2 := s.Scope("CollapseExactDuplicates")
	reps, exactEdges := beam.ParDo2(s2, collapseFn{}, beam.GroupByKey(s2, features))

	s3 := s.Scope("MinHashLSH")
	bands, signed := beam.ParDo2(s3, &signFn{
		Scheme: string(cfg.Scheme), Seed: cfg.Seed, NumPerm: cfg.NumPerm, Bands: cfg.Bands, Rows: cfg.Rows,
	}, reps)
	candidates := beam.ParDo(s3, bucketEdges, beam.GroupByKey(s3, bands))

	verified := Verify(s, candidates, signed, cfg)
	fates, sims, lines := Cluster(s, beam.Flatten(s, exactEdges, verified), features, cfg)

	decisions := beam.ParDo(s.Scope("Decide"), decide, beam.CoGroupByKey(s, locs, fates, sims))
	sink.Write(s, decisions, rejected, cfg.writeConfig(tempDir))
	writeSorted(s.Scope("WriteClusters"), lines, tempDir, ClustersFile)
}

func (c *Config) sourceConfig() source.Config {
	return source.Config{Patterns: c.Inputs, Format: c.Format, IDField: c.IDField, TextField: c.TextField}
}

func (c *Config) writeConfig(tempDir string) sink.WriteConfig {
	return sink.WriteConfig{TempDir: tempDir, Format: c.Format, IDField: c.IDField, TextField: c.TextField}
}
