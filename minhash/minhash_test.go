package minhash

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseScheme(t *testing.T) {
	for in, want := range map[string]Scheme{"": Affine32, "affine32": Affine32, "affine64": Affine64, "legacy": Legacy} {
		got, err := ParseScheme(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got)
	}
	_, err := ParseScheme("Affine32")
	require.Error(t, err)
	for _, s := range []string{`"Affine32"`, "affine32", "affine64", "legacy"} {
		assert.Contains(t, err.Error(), s)
	}
}

func TestParseHashFunc(t *testing.T) {
	for in, want := range map[string]HashFunc{"": XXHash, "xxhash": XXHash, "sha1": SHA1} {
		got, err := ParseHashFunc(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got)
	}
	_, err := ParseHashFunc("md5")
	require.Error(t, err)
	for _, s := range []string{`"md5"`, "sha1", "xxhash"} {
		assert.Contains(t, err.Error(), s)
	}
	assert.Panics(t, func() { HashFunc("md5").Sum64(nil) })
}

func TestXXHashIsXXHash64(t *testing.T) {
	// Reference values of XXH64 with seed 0 (the xxHash specification's test vectors).
	assert.Equal(t, uint64(0xef46db3751d8e999), XXHash.Sum64(nil))
	assert.Equal(t, uint64(0xd24ec4f1a98c6e5b), XXHash.Sum64([]byte("a")))
}

func TestNewPermutationsErrors(t *testing.T) {
	_, err := NewPermutations(Affine32, 1, 0)
	assert.ErrorContains(t, err, "num_perm must be at least 1, got 0")
	_, err = NewPermutations(Affine32, -1, 16)
	assert.ErrorContains(t, err, "seed must be between 0 and 2**32 - 1, got -1")
	_, err = NewPermutations(Affine32, 1<<32, 16)
	assert.ErrorContains(t, err, "got 4294967296")
	_, err = NewPermutations("sha256", 1, 16)
	assert.ErrorContains(t, err, `unknown scheme "sha256"`)
	_, err = NewPermutations("", 1, 16)
	assert.ErrorContains(t, err, "empty scheme")
	_, err = NewSigner(Legacy, 1, -3)
	assert.ErrorContains(t, err, "got -3")

	p, err := NewPermutations(Affine32, 1<<32-1, 4) // the largest seed numpy accepts
	require.NoError(t, err)
	for _, a := range p.A {
		assert.Equal(t, uint64(1), a&1, "affine a must be odd")
	}
}

func TestNewSignerFromChecksParameters(t *testing.T) {
	_, err := NewSignerFrom(&Permutations{Scheme: Affine32, A: []uint64{1 << 40}, B: []uint64{0}})
	assert.ErrorContains(t, err, "affine32 permutation 0 has a 64-bit parameter")
	_, err = NewSignerFrom(&Permutations{Scheme: Affine32, A: []uint64{1, 3}, B: []uint64{0}})
	assert.ErrorContains(t, err, "got 2 a and 1 b")
}

// TestKernelsMatchReference checks the blocked, unrolled kernels against the obvious
// per-(hash, permutation) definition (Permute), for permutation counts that are not
// multiples of the unroll width and documents larger than one block.
func TestKernelsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, scheme := range []Scheme{Affine32, Affine64, Legacy} {
		for _, k := range []int{1, 3, 4, 7, 128, 130} {
			s, err := NewSigner(scheme, 7, k)
			require.NoError(t, err)
			for _, n := range []int{0, 1, 5, blockSize, blockSize + 1, 3*blockSize + 17} {
				hashes := make([]uint64, n)
				for i := range hashes {
					hashes[i] = rng.Uint64()
				}
				want := SignWith(s, hashes)
				assert.Equal(t, want, s.Sign(hashes).Values, "%s k=%d n=%d", scheme, k, n)

				// Accumulating in two halves equals signing all at once.
				dst := s.New()
				s.Accumulate(dst.Values, hashes[:n/2])
				s.Accumulate(dst.Values, hashes[n/2:])
				assert.Equal(t, want, dst.Values, "%s k=%d n=%d halves", scheme, k, n)
			}
		}
	}
}

func TestMod61(t *testing.T) {
	for _, x := range []uint64{0, 1, mersenne61 - 1, mersenne61, mersenne61 + 1, 2 * mersenne61, 1<<64 - 1, 1 << 63, 7*mersenne61 + 6} {
		assert.Equal(t, x%mersenne61, mod61(x), "%d", x)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		x := rng.Uint64()
		require.Equal(t, x%mersenne61, mod61(x), "%d", x)
	}
}

func TestSignIntoResetsAndDoesNotAllocate(t *testing.T) {
	s, err := NewSigner(Affine32, 1, 128)
	require.NoError(t, err)
	hashes := []uint64{1, 2, 3, 4, 5}
	dst := make([]uint64, 128)
	for i := range dst {
		dst[i] = 0 // a stale signature smaller than anything: SignInto must reset it
	}
	s.SignInto(dst, hashes)
	assert.Equal(t, s.Sign(hashes).Values, dst)
	assert.Zero(t, testing.AllocsPerRun(20, func() { s.SignInto(dst, hashes) }))
	assert.Panics(t, func() { s.SignInto(make([]uint64, 3), hashes) })
}

func TestSignerSharedAcrossGoroutines(t *testing.T) {
	s, err := NewSigner(Affine32, 1, 64)
	require.NoError(t, err)
	hashes := make([]uint64, 300)
	for i := range hashes {
		hashes[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	want := SignWith(s, hashes)
	var wg sync.WaitGroup
	got := make([][]uint64, 4)
	for g := range got {
		wg.Go(func() { got[g] = s.Sign(hashes).Values })
	}
	wg.Wait()
	for _, g := range got {
		assert.Equal(t, want, g)
	}
}

func TestJaccardAndMergeMismatch(t *testing.T) {
	sig := func(scheme Scheme, seed int64, k int) *MinHash {
		s, err := NewSigner(scheme, seed, k)
		require.NoError(t, err)
		return s.Sign([]uint64{1, 2, 3})
	}
	base := sig(Affine32, 1, 16)
	for _, tc := range []struct {
		other *MinHash
		msg   string
	}{
		{sig(Affine64, 1, 16), "different schemes: affine32 vs affine64"},
		{sig(Affine32, 2, 16), "different seeds: 1 vs 2"},
		{sig(Affine32, 1, 32), "different num_perm: 16 vs 32"},
	} {
		_, err := base.Jaccard(tc.other)
		assert.ErrorContains(t, err, tc.msg)
		assert.ErrorContains(t, base.Copy().Merge(tc.other), tc.msg)
	}
	j, err := base.Jaccard(base.Copy())
	require.NoError(t, err)
	assert.Equal(t, 1.0, j)

	s, err := NewSigner(Affine32, 1, 16)
	require.NoError(t, err)
	assert.ErrorContains(t, s.Update(sig(Affine32, 1, 8), SHA1, []byte("x")), "num_perm 8")
}

func TestEmptyAndClear(t *testing.T) {
	for _, scheme := range []Scheme{Affine32, Affine64, Legacy} {
		s, err := NewSigner(scheme, 1, 8)
		require.NoError(t, err)
		m := s.New()
		assert.True(t, m.IsEmpty())
		assert.Equal(t, 0.0, m.Count())
		require.NoError(t, s.Update(m, XXHash, []byte("x")))
		assert.False(t, m.IsEmpty())
		m.Clear()
		assert.True(t, m.IsEmpty())
	}
}
