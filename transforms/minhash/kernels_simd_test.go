//go:build goexperiment.simd && amd64

package minhash

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"simd/archsimd"
)

// TestAVX2KernelMatchesPlainGo signs the same documents with the AVX2 kernel and with
// the plain-Go kernel (switching useAVX2 off) and requires identical signatures, for
// permutation counts that exercise the 32-wide, 8-wide and scalar parts.
func TestAVX2KernelMatchesPlainGo(t *testing.T) {
	if !archsimd.X86.AVX2() {
		t.Skip("CPU has no AVX2")
	}
	require.True(t, useAVX2, "AVX2 CPU but the AVX2 kernel is off")
	t.Cleanup(func() { useAVX2 = true })
	rng := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{1, 7, 8, 9, 16, 31, 32, 33, 45, 128, 256} {
		s, err := NewSigner(Affine32, 42, k)
		require.NoError(t, err)
		for _, n := range []int{1, 3, 8, 200, blockSize + 9, 1000} {
			hashes := make([]uint64, n)
			for i := range hashes {
				hashes[i] = rng.Uint64()
			}
			useAVX2 = true
			simd := s.Sign(hashes).Values
			useAVX2 = false
			plain := s.Sign(hashes).Values
			useAVX2 = true
			assert.Equal(t, plain, simd, "k=%d n=%d", k, n)
			assert.Equal(t, SignWith(s, hashes), simd, "k=%d n=%d reference", k, n)
		}
	}
}

func TestFmixBlock32MatchesFmix32(t *testing.T) {
	if !archsimd.X86.AVX2() {
		t.Skip("CPU has no AVX2")
	}
	var hs [4][lanes]uint32
	want := hs
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range hs {
		for j := range hs[i] {
			hs[i][j] = rng.Uint32()
			want[i][j] = Fmix32(hs[i][j])
		}
	}
	hs[0][0], want[0][0] = 0, 0
	hs[0][1], want[0][1] = 0xFFFFFFFF, Fmix32(0xFFFFFFFF)
	fmixBlock32(hs[:])
	assert.Equal(t, want, hs)
}
