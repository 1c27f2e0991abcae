package pipeline

import (
	"io"
	"os"
)

// UsageError marks an error in how the run was asked for (a flag value, an input that is
// not a file, an unusable --output), found before the pipeline starts; the CLI exits with
// status 2 for it.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// warnings is where the driver tells the user about the output directory.
func (c *Config) warnings() io.Writer {
	if c.Warnings != nil {
		return c.Warnings
	}
	return os.Stderr
}
