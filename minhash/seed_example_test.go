package minhash

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tableFamily is a hand-given permutation family: perm k maps a shingle hash to a rank.
type tableFamily struct {
	ranks []map[uint64]uint64
	empty uint64
}

func (f tableFamily) NumPerm() int  { return len(f.ranks) }
func (f tableFamily) Empty() uint64 { return f.empty }
func (f tableFamily) Permute(k int, h uint64) uint64 {
	r, ok := f.ranks[k][h]
	if !ok {
		panic(fmt.Sprintf("shingle hash %#x has no rank in permutation %d", h, k))
	}
	return r
}

// wordBigrams is the seed article's shingling: words joined by one space.
func wordBigrams(text string) []string {
	w := strings.Fields(text)
	var out []string
	for i := 0; i+1 < len(w); i++ {
		out = append(out, w[i]+" "+w[i+1])
	}
	return out
}

// exactJaccard is |A∩B| / |A∪B| of two string sets; two empty sets are identical (1.0).
func exactJaccard(a, b []string) float64 {
	in := map[string]bool{}
	for _, x := range a {
		in[x] = true
	}
	union := map[string]bool{}
	inter := 0
	for _, x := range b {
		if in[x] && !union[x] {
			inter++
		}
		union[x] = true
	}
	for x := range in {
		union[x] = true
	}
	if len(union) == 0 {
		return 1.0
	}
	return float64(inter) / float64(len(union))
}

// TestSeedArticleToyPermutations reproduces the seed article's illustration: two
// hand-made permutations over four bigrams give D1 and D2 identical signatures, so the
// estimate says 1.0 where the exact Jaccard is 2/3.
func TestSeedArticleToyPermutations(t *testing.T) {
	docs := []string{"red blue green", "red blue green yellow", "black white"}
	perms := []map[string]uint64{
		{"red blue": 1, "blue green": 3, "green yellow": 4, "black white": 2},
		{"red blue": 4, "blue green": 1, "green yellow": 3, "black white": 2},
	}
	for _, hf := range []HashFunc{XXHash, SHA1} {
		t.Run(string(hf), func(t *testing.T) {
			fam := tableFamily{empty: 1 << 32}
			for _, p := range perms {
				ranks := map[uint64]uint64{}
				for shingle, r := range p {
					ranks[hf.Sum64([]byte(shingle))] = r
				}
				require.Len(t, ranks, len(p), "shingle hashes collide")
				fam.ranks = append(fam.ranks, ranks)
			}
			sigs := make([][]uint64, len(docs))
			for i, d := range docs {
				var hashes []uint64
				for _, s := range wordBigrams(d) {
					hashes = append(hashes, hf.Sum64([]byte(s)))
				}
				sigs[i] = SignWith(fam, hashes)
			}
			assert.Equal(t, []uint64{1, 1}, sigs[0], "D1")
			assert.Equal(t, []uint64{1, 1}, sigs[1], "D2")
			assert.Equal(t, []uint64{2, 2}, sigs[2], "D3")

			est, err := Estimate(sigs[0], sigs[1])
			require.NoError(t, err)
			assert.Equal(t, 1.0, est, "estimate D1/D2")
			assert.Equal(t, 2.0/3.0, exactJaccard(wordBigrams(docs[0]), wordBigrams(docs[1])), "exact D1/D2")
			est, err = Estimate(sigs[0], sigs[2])
			require.NoError(t, err)
			assert.Equal(t, 0.0, est, "estimate D1/D3")
		})
	}
}

func TestSignWithEmptyDocument(t *testing.T) {
	fam := tableFamily{ranks: make([]map[uint64]uint64, 3), empty: 99}
	assert.Equal(t, []uint64{99, 99, 99}, SignWith(fam, nil))
}
