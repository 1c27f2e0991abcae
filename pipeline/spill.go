package pipeline

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

	"github.com/neardup/neardup/io/files"
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

// chooseSpillDir sets where the stages spill to local files (--band-spill): inside the
// temporary directory when it is local, else a local directory that close removes.
func (pl *plan) chooseSpillDir() error {
	if pl.cfg.BandSpill != BandSpillAuto || !workersInProcess() {
		return nil
	}
	if files.IsLocal(pl.tmp()) {
		pl.spillDir = filepath.Join(pl.tmp(), "spill")
		return nil
	}
	dir, err := os.MkdirTemp("", "neardup-spill-")
	if err != nil {
		return err
	}
	pl.spillDir = dir
	pl.cleanSpill = func() { os.RemoveAll(dir) }
	return nil
}
