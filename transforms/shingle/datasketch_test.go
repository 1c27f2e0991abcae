package shingle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/transforms/normalize"
)

// conformancePath finds ../shared/conformance/datasketch/<name> relative to the
// module root (the directory holding go.mod), whatever the test's working dir.
func conformancePath(t *testing.T, name string) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "conformance", "datasketch", name)
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "go.mod not found above the test directory")
		dir = parent
	}
}

// TestDatasketchBigramSets rebuilds the word-bigram input sets of the datasketch
// vectors (made in Python with doc.split(' ') and, for one, .lower()) from their
// source texts.
func TestDatasketchBigramSets(t *testing.T) {
	raw, err := os.ReadFile(conformancePath(t, "minhash_vectors.json"))
	require.NoError(t, err)
	var v struct {
		InputSets []struct {
			Name        string   `json:"name"`
			Description string   `json:"description"`
			Elements    []string `json:"elements"`
		} `json:"input_sets"`
	}
	require.NoError(t, json.Unmarshal(raw, &v))
	re := regexp.MustCompile(`^word bigrams of '(.*)'`)
	checked := 0
	for _, s := range v.InputSets {
		m := re.FindStringSubmatch(s.Description)
		if m == nil {
			continue
		}
		got := Strings(normalize.Text(m[1], normalize.Options{}), Options{Kind: Word, N: 2})
		slices.Sort(got) // the vectors list the set sorted
		require.Equal(t, s.Elements, got, s.Name)
		checked++
	}
	require.GreaterOrEqual(t, checked, 7, "the vectors hold at least 7 bigram sets")
}
