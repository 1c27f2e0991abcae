// Package repotest locates the repository's own files from tests, whatever package
// directory `go test` runs them in: testdata/ at the module root, the datasketch
// conformance vectors among them, so that a bare clone runs its own tests.
package repotest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FindRoot returns the nearest directory at or above the working directory that holds
// go.mod.
func FindRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test directory")
		}
		dir = parent
	}
}

// Root is FindRoot for a test: it fails the test when there is no module root.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := FindRoot()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// Conformance returns the path of a datasketch vector file,
// testdata/conformance/datasketch/<name> under the module root.
func Conformance(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(Root(t), "testdata", "conformance", "datasketch", name)
}
