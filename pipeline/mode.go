package pipeline

import (
	"fmt"
	"strings"

	"github.com/neardup/neardup/io/sink"
	"github.com/neardup/neardup/pipeline/internal/cluster"
	"github.com/neardup/neardup/report"
)

func (c *Config) validateMode() error {
	if err := oneOf("--mode", c.Mode, ModeDedup, ModeAnnotate); err != nil {
		return err
	}
	if c.Mode == ModeAnnotate && (c.AnnotatePrefix == "" || strings.ContainsAny(c.AnnotatePrefix, "\"\\\x00\n")) {
		return fmt.Errorf("--annotate-prefix: must be non-empty, without quotes, backslashes or control characters, got %q", c.AnnotatePrefix)
	}
	return nil
}

// outputNames are the files the writers produce for the resolved format and mode.
func (pl *plan) outputNames() []string {
	if pl.cfg.Mode == ModeAnnotate {
		return sink.AnnotateOutputNames(string(pl.format))
	}
	return sink.OutputNames(string(pl.format))
}

// olderOutputs are the names any dedup run may write (in any mode and format): an
// --overwrite commit replaces all of those it finds, so that no older run's output stays
// beside the new set.
func olderOutputs() []string {
	return append(append(sink.AllOutputNames(), shardedOutputs()...), clustersFile, report.SimilaritiesFile, report.HTMLFile, statsFile)
}

// checkFormat checks the choices that depend on the inputs' resolved format.
func (pl *plan) checkFormat() error {
	if cluster.IsKeepField(string(pl.cfg.Keep)) && pl.format == FormatText {
		return fmt.Errorf("--keep %s: text input has no fields; use it with JSONL or Parquet", pl.cfg.Keep)
	}
	return nil
}
