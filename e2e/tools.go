//go:build tools

package e2e

// Blank imports of the commands the end-to-end tests build from the module cache, so that
// `go mod tidy` keeps their modules in go.mod. The tools tag keeps this file out of every
// real build (a main package cannot be imported).
import (
	_ "github.com/apache/beam/sdks/v2/go/cmd/prism"
	_ "github.com/fsouza/fake-gcs-server"
)
