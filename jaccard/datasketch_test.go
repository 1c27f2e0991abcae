package jaccard

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/repotest"
)

// TestDatasketchExactSetJaccard checks Jaccard on hashed sets against the exact set
// Jaccard recorded next to datasketch's estimates (computed in Python on strings).
func TestDatasketchExactSetJaccard(t *testing.T) {
	raw, err := os.ReadFile(repotest.Conformance(t, "minhash_vectors.json"))
	require.NoError(t, err)
	var v struct {
		InputSets []struct {
			Name     string   `json:"name"`
			Elements []string `json:"elements"`
		} `json:"input_sets"`
		Jaccard []struct {
			A     string   `json:"a"`
			B     string   `json:"b"`
			Exact *float64 `json:"exact_set_jaccard"` // null where 0/0 is undefined in Python
		} `json:"jaccard"`
	}
	require.NoError(t, json.Unmarshal(raw, &v))
	sets := map[string][]uint64{}
	for _, s := range v.InputSets {
		sets[s.Name] = hashSet(s.Elements...)
	}
	require.NotEmpty(t, v.Jaccard)
	checked := 0
	for _, c := range v.Jaccard {
		a, okA := sets[c.A]
		b, okB := sets[c.B]
		require.True(t, okA && okB, "unknown set %s or %s", c.A, c.B)
		if c.Exact == nil {
			// Python cannot divide 0 by 0; the project's rule (the seed's, and
			// datasketch's MinHash.jaccard of two empty signatures) is 1.0.
			require.Empty(t, a)
			require.Empty(t, b)
			require.Equal(t, 1.0, Similarity(a, b))
			continue
		}
		require.Equal(t, *c.Exact, Similarity(a, b), "%s vs %s", c.A, c.B)
		checked++
	}
	require.Greater(t, checked, 10)
}
