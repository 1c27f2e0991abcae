package minhash

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/cpu"
)

// TestAVX2KernelMatchesPlainGo signs the same documents with the AVX2 kernel and with
// the plain-Go kernel (switching useAVX2 off) and requires identical signatures, for
// permutation counts that exercise the 32-wide, 8-wide and scalar parts and hash counts
// that fill one, several and partly filled blocks.
func TestAVX2KernelMatchesPlainGo(t *testing.T) {
	if !cpu.X86.HasAVX2 {
		t.Skip("CPU has no AVX2")
	}
	saved := useAVX2
	t.Cleanup(func() { useAVX2 = saved })
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
			avx2 := s.Sign(hashes).Values
			useAVX2 = false
			plain := s.Sign(hashes).Values
			assert.Equal(t, plain, avx2, "k=%d n=%d", k, n)
			assert.Equal(t, SignWith(s, hashes), avx2, "k=%d n=%d reference", k, n)
		}
	}
}

// TestAVX2KernelExtremes puts the values where 32-bit wrap-around and unsigned
// comparison differ from signed: a minimum of 0, products that overflow, and hashes and
// coefficients at 0 and 2^32-1.
func TestAVX2KernelExtremes(t *testing.T) {
	if !cpu.X86.HasAVX2 {
		t.Skip("CPU has no AVX2")
	}
	a := make([]uint32, 41)
	b := make([]uint32, 41)
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range a {
		a[i], b[i] = rng.Uint32(), rng.Uint32()
	}
	a[0], b[0] = 0xFFFFFFFF, 0xFFFFFFFF
	a[1], b[1] = 1, 0
	a[2], b[2] = 0x80000000, 0x7FFFFFFF
	hs := [][lanes]uint32{{0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 2, 3, 4}, {5, 6, 7, 8, 9, 10, 11, 0xFFFFFFFE}}
	want := make([]uint64, len(a))
	got := make([]uint64, len(a))
	for i := range want {
		want[i], got[i] = 0xFFFFFFFF, 0xFFFFFFFF
	}
	minBlock32(want, a, b, hs)
	minBlock32AVX2(got, a, b, hs)
	assert.Equal(t, want, got)
	assert.Zero(t, got[1], "a=1, b=0 takes the hash 0")
}
