package pipeline

import (
	"fmt"
	"strings"

	"github.com/neardup/neardup/io/sink"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/pipeline/internal/cluster"
	"github.com/neardup/neardup/report"
)

// Modes: what dedup writes.
const (
	modeDedup    = "dedup"    // kept and removed records (default)
	modeAnnotate = "annotate" // every record, with its cluster fields added
)

func (c *Config) validateMode() error {
	switch c.Mode {
	case modeDedup, modeAnnotate:
	default:
		return fmt.Errorf("--mode: must be dedup or annotate, got %q", c.Mode)
	}
	if c.Mode == modeAnnotate && (c.AnnotatePrefix == "" || strings.ContainsAny(c.AnnotatePrefix, "\"\\\x00\n")) {
		return fmt.Errorf("--annotate-prefix: must be non-empty, without quotes, backslashes or control characters, got %q", c.AnnotatePrefix)
	}
	return nil
}

// outputNames are the files the writers produce for the resolved format and mode.
func (c *Config) outputNames() []string {
	if c.Mode == modeAnnotate {
		return sink.AnnotateOutputNames(c.Format)
	}
	return sink.OutputNames(c.Format)
}

// olderOutputs are the names any dedup run may write (in any mode and format): an
// --overwrite commit replaces all of those it finds, so that no older run's output stays
// beside the new set.
func olderOutputs() []string {
	return append(append(sink.AllOutputNames(), shardedOutputs()...), clustersFile, report.SimilaritiesFile, report.HTMLFile, statsFile)
}

// checkFormat checks the choices that depend on the inputs' resolved format.
func (c *Config) checkFormat() error {
	if cluster.IsKeepField(c.Keep) && c.Format == source.FormatText {
		return fmt.Errorf("--keep %s: text input has no fields; use it with JSONL or Parquet", c.Keep)
	}
	return nil
}
