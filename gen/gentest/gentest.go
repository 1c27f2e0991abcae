// Package gentest writes generated corpora for tests: the one way a test gets
// `neardup gen`'s documents, with their truth file beside them.
package gentest

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/gen"
)

// Write generates the corpus o describes, as `neardup gen` does, into o.Output with its
// truth file beside it (o.TruthPath()), and returns the corpus's path. An empty or
// relative o.Output (gen.Defaults() has one) is taken inside the test's temporary
// directory: a test never writes into the source tree.
func Write(t testing.TB, o gen.Options) string {
	t.Helper()
	if o.Output == "" {
		o.Output = "corpus.jsonl"
	}
	if !filepath.IsAbs(o.Output) {
		o.Output = filepath.Join(t.TempDir(), o.Output)
	}
	require.NoError(t, gen.Run(o, io.Discard))
	return o.Output
}

// Corpus is `neardup gen --n n --seed seed` with dupFraction of the documents planted
// near-duplicates (gen.Defaults().DupFraction is gen's own), written by Write.
func Corpus(t testing.TB, n int, seed uint64, dupFraction float64) string {
	t.Helper()
	o := gen.Defaults()
	o.N, o.Seed, o.DupFraction, o.Output = n, seed, dupFraction, ""
	return Write(t, o)
}
