// Package prismtest runs a package's tests on the embedded Prism runner neardup runs
// (internal/prism) without leaving in /tmp the file Beam's loopback worker leaves for
// every job (see tmpdir).
package prismtest

import (
	"os"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/neardup/neardup/internal/prism"
	"github.com/neardup/neardup/internal/tmpdir"
)

// Main is a TestMain body: it runs m on Prism (unless a --runner flag names another
// runner) in a temporary directory of its own (tmpdir.Run) and exits with the tests' code.
func Main(m *testing.M) {
	code, _ := tmpdir.Run(func() (int, error) { return ptest.MainRetWithDefault(m, prism.Name), nil })
	os.Exit(code)
}
