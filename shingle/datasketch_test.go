package shingle

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/repotest"
	"github.com/neardup/neardup/normalize"
)

// TestDatasketchBigramSets rebuilds the word-bigram input sets of the datasketch
// vectors (made in Python with doc.split(' ') and, for one, .lower()) from their
// source texts.
func TestDatasketchBigramSets(t *testing.T) {
	raw, err := os.ReadFile(repotest.Conformance(t, "minhash_vectors.json"))
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
