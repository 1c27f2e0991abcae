package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

	"github.com/neardup/neardup/internal/interrupt"
	"github.com/neardup/neardup/internal/spilldir"
	"github.com/neardup/neardup/io/files"
)

// Band spilling (--band-spill): the band entries, one per band and document, are the
// job's largest shuffle, and the embedded Prism runner holds a shuffle's volume in
// memory several times over (internal/spill says where). Written to local files by
// partition instead, they cost their bytes on disk once and the bucketing step holds one
// partition at a time. That needs every worker to see the same disk, which is true
// exactly when the workers run in this process.
const (
	bandSpillAuto = "auto" // spill when the workers run in this process (the default)
	bandSpillOff  = "off"  // always through the runner's shuffle
)

// workersInProcess reports whether the SDK workers will run in this process: the
// embedded Prism runner (no --runner, or prism/direct without --endpoint), or any
// runner with --environment_type=LOOPBACK.
func workersInProcess() bool {
	env := strings.ToLower(*jobopts.EnvironmentType)
	if env == "loopback" {
		return true
	}
	switch *runners.Runner {
	case "", "prism", "direct":
		return env == "" && *jobopts.Endpoint == ""
	}
	return false
}

// chooseSpillDir sets where featurize spills band entries for a run whose temporary
// directory is tempDir, and returns a cleanup for a directory outside it. By default
// that is a directory inside tempDir when it is local (the next run into the output
// removes it if this one is killed); with --spill-dir, or when tempDir is remote, it is
// a directory of this run's under --spill-dir or the system's temporary directory, where
// the directories of killed runs are removed first (internal/spilldir). notes are what
// the user should hear about that.
func (c *Config) chooseSpillDir(tempDir string) (cleanup func(), notes []string, err error) {
	c.spillDir = ""
	if c.BandSpill != bandSpillAuto || !workersInProcess() {
		return func() {}, nil, nil
	}
	parent := c.SpillDir
	if parent == "" && files.IsLocal(tempDir) {
		c.spillDir = filepath.Join(tempDir, "spill")
		return func() {}, nil, nil
	}
	if parent == "" {
		parent = os.TempDir()
	}
	swept, err := spilldir.Sweep(parent)
	if err != nil {
		notes = append(notes, fmt.Sprintf("could not remove every spill directory of killed runs in %s: %v", parent, err))
	}
	for _, d := range swept {
		notes = append(notes, fmt.Sprintf("removed %s, left by a run that is no longer running", d))
	}
	d, err := spilldir.Make(parent)
	if err != nil {
		return nil, notes, fmt.Errorf("--spill-dir %s: %w", parent, err)
	}
	c.spillDir = d.Path
	// A SIGINT or SIGTERM ends the process without running the defers.
	unregister := interrupt.Register(func() string { d.Release(); return "" })
	return func() { unregister(); d.Release() }, notes, nil
}
