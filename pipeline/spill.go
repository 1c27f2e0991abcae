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

// chooseSpillDir sets where the stages spill to local files (--band-spill). By default
// that is a directory inside the temporary directory when it is local (the next run
// into the output removes it if this one is killed); with --spill-dir, or when the
// temporary directory is remote, it is a directory of this run's under --spill-dir or
// the system's temporary directory, where the directories of killed runs are removed
// first (internal/spilldir), and close removes it. notes are what the user should hear
// about that.
func (pl *plan) chooseSpillDir() (notes []string, err error) {
	if pl.cfg.BandSpill != BandSpillAuto || !workersInProcess() {
		return nil, nil
	}
	parent := pl.cfg.SpillDir
	if parent == "" && files.IsLocal(pl.tmp()) {
		pl.spillDir = filepath.Join(pl.tmp(), "spill")
		return nil, nil
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
		return notes, fmt.Errorf("--spill-dir %s: %w", parent, err)
	}
	pl.spillDir = d.Path
	// A SIGINT or SIGTERM ends the process without running the defers.
	unregister := interrupt.Register(func() string { d.Release(); return "" })
	pl.cleanSpill = func() { unregister(); d.Release() }
	return notes, nil
}
