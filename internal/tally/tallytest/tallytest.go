// Package tallytest runs a test pipeline and returns the totals of its counts.
package tallytest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/neardup/neardup/internal/tally"
)

// Run adds the totals of counts, PCollections of tally.Count, to s, runs p with ptest
// and returns the totals by name. It fails t when the pipeline fails.
func Run(t testing.TB, p *beam.Pipeline, s beam.Scope, counts ...beam.PCollection) map[string]int64 {
	t.Helper()
	path := filepath.Join(t.TempDir(), "counts.json")
	tally.Write(s, path, counts...)
	if err := ptest.Run(p); err != nil {
		t.Fatalf("pipeline: %v", err)
	}
	got, err := tally.Read(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
