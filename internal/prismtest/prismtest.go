// Package prismtest runs a package's tests on Beam's embedded Prism runner without
// leaving files behind: Beam's loopback worker creates an empty "beamloopbackworker-*"
// file in the temporary directory for every job and never removes it
// (apache/beam#27569), which over a test run is hundreds of files in /tmp.
package prismtest

import (
	"fmt"
	"os"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// Main is a TestMain body: it runs m on Prism (unless a --runner flag names another
// runner) with TMPDIR pointing at a new directory, removes the directory, and exits with
// the tests' code.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "neardup-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", dir)
	code := ptest.MainRetWithDefault(m, "prism")
	os.RemoveAll(dir)
	os.Exit(code)
}
