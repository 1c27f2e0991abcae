package pipeline

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/neardup/neardup/io/source"
)

// What a run does with an input file whose stream breaks mid-way (a truncated or corrupt
// .gz/.zst, an unreadable Parquet page, a gs:// read that fails): the records after the
// break cannot be counted, so they can be in no output.
const (
	// damagedFail stops the run, naming the file, its last good line and the byte offset
	// of the break, before any output is committed (the default).
	damagedFail = "fail"
	// damagedSkip keeps what was read before the break, records the file in
	// rejected.jsonl and stats.json, and warns.
	damagedSkip = "skip"
)

// UsageError marks an error in how the run was asked for (a flag value, an input that is
// not a file, an unusable --output), found before the pipeline starts; the CLI exits with
// status 2 for it.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// checkChoices checks the enumerated and bounded flags Validate's older checks do not
// cover, so that every bad value fails before the pipeline, naming its flag.
func (c *Config) checkChoices() []error {
	var errs []error
	switch c.Format {
	case source.FormatAuto, source.FormatJSONL, source.FormatText, source.FormatParquet:
	default:
		errs = append(errs, fmt.Errorf("--format: must be auto, jsonl, text or parquet, got %q", c.Format))
	}
	switch c.OnDamagedFile {
	case damagedFail, damagedSkip:
	default:
		errs = append(errs, fmt.Errorf("--on-damaged-file: must be fail or skip, got %q", c.OnDamagedFile))
	}
	switch c.LSH {
	case LSHRecall, LSHDatasketch:
	default:
		errs = append(errs, fmt.Errorf("--lsh: must be recall or datasketch, got %q", c.LSH))
	}
	if c.Seed < 0 || c.Seed > math.MaxUint32 {
		// numpy's RandomState, whose permutations datasketch uses, takes only these seeds.
		errs = append(errs, fmt.Errorf("--seed: must be between 0 and 4294967295, got %d", c.Seed))
	}
	if c.Output != "" && len(c.Inputs) > 0 {
		for _, in := range c.Inputs {
			if in == c.Output {
				errs = append(errs, errors.New("--output: must not be one of the --input paths"))
				break
			}
		}
	}
	return errs
}

// warnings is where the driver tells the user about the output directory.
func (c *Config) warnings() io.Writer {
	if c.Warnings != nil {
		return c.Warnings
	}
	return os.Stderr
}
