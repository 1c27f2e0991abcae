package pipeline

import (
	"fmt"
	"os"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// TestMain runs the tests on Prism. Beam's loopback worker leaves an empty temp file per
// job, so the jobs get a temp directory of their own that is removed afterwards.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "neardup-pipeline-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", dir)
	code := ptest.MainRetWithDefault(m, "prism")
	os.RemoveAll(dir)
	os.Exit(code)
}
