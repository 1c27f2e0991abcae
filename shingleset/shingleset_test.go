package shingleset

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Set is Hashes in another order, capped the same way, whatever the scratch held before.
func TestSetIsHashesUnordered(t *testing.T) {
	texts := []string{"", "one", "The cat sat on the mat, the cat sat.", "a b c d e f g h a b c d e f g h i j",
		"Привет мир привет МИР", "x y x y x y x y x y x y"}
	var scratch Scratch
	for _, max := range []int{0, 3, 100} {
		sh, err := Config{Kind: "word", N: 2, Hash: "xxhash", MaxShingles: max}.Shingler()
		require.NoError(t, err)
		for _, text := range texts {
			want, wantCapped := sh.Hashes(text)
			got, capped := sh.Set(text, &scratch)
			got = slices.Sorted(slices.Values(got))
			require.Equal(t, wantCapped, capped, "max %d %q", max, text)
			require.Equal(t, len(want), len(got), "max %d %q", max, text)
			if len(want) > 0 {
				require.Equal(t, want, got, "max %d %q", max, text)
			}
		}
	}
}
