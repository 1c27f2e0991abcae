package pipeline

import (
	"os"
	"testing"
)

// A run leaves nothing in the temporary directory: Beam's portable runner creates a
// "beamloopbackworker-*" file there for every LOOPBACK job and never removes it.
func TestRunLeavesNoTempFiles(t *testing.T) {
	cfg := seedConfig(t) // its output directory is made under the TMPDIR of before
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dedup(t, cfg)
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("the run left %s in TMPDIR", e.Name())
	}
	if got := os.Getenv("TMPDIR"); got != tmp {
		t.Errorf("TMPDIR is %q after the run, want %q restored", got, tmp)
	}
}
