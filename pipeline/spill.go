package pipeline

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

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
// directory is tempDir, and returns a cleanup for a directory outside it.
func (c *Config) chooseSpillDir(tempDir string) (cleanup func(), err error) {
	c.spillDir = ""
	if c.BandSpill != bandSpillAuto || !workersInProcess() {
		return func() {}, nil
	}
	if files.IsLocal(tempDir) {
		c.spillDir = filepath.Join(tempDir, "spill")
		return func() {}, nil
	}
	dir, err := os.MkdirTemp("", "neardup-spill-")
	if err != nil {
		return nil, err
	}
	c.spillDir = dir
	return func() { os.RemoveAll(dir) }, nil
}
