package repotest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The conformance vectors live inside the repository, so that a bare clone with nothing
// beside it passes its own tests.
func TestConformanceInsideModule(t *testing.T) {
	root := Root(t)
	for _, name := range []string{"lsh_params.json", "minhash_vectors.json", "serialization_vectors.json"} {
		p := Conformance(t, name)
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			t.Errorf("%s resolves to %s, outside the module root %s", name, p, root)
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
