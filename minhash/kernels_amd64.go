package minhash

import (
	"os"

	"golang.org/x/sys/cpu"
)

// useAVX2 selects the AVX2 affine32 kernel (kernels_amd64.s) on CPUs that have AVX2;
// its signatures are bit-identical to the plain-Go kernel's. NEARDUP_MINHASH_KERNEL=go
// turns it off, to compare the two.
var useAVX2 = cpu.X86.HasAVX2 && os.Getenv("NEARDUP_MINHASH_KERNEL") != "go"

// minBlock32AVX2 folds a block of mixed hashes into dst, 32 permutations at a time, then
// 8, then the rest through the plain-Go loop.
//
// Permutations are the vector lanes: each hash is broadcast to all lanes, so one hash
// costs four VPMULLD, VPADDD and VPMINUD for 32 permutations, and nothing has to be
// reduced across lanes at the end.
func minBlock32AVX2(dst []uint64, a, b []uint32, hs [][lanes]uint32) {
	if len(hs) == 0 {
		return
	}
	b = b[:len(a)]
	dst = dst[:len(a)]
	k := 0
	for ; k+32 <= len(a); k += 32 {
		var m [32]uint32
		for j := range m {
			m[j] = uint32(dst[k+j])
		}
		minPerm32x32AVX2((*[32]uint32)(a[k:k+32]), (*[32]uint32)(b[k:k+32]), &m, &hs[0], len(hs))
		for j, v := range m {
			dst[k+j] = uint64(v)
		}
	}
	for ; k+8 <= len(a); k += 8 {
		var m [8]uint32
		for j := range m {
			m[j] = uint32(dst[k+j])
		}
		minPerm32x8AVX2((*[8]uint32)(a[k:k+8]), (*[8]uint32)(b[k:k+8]), &m, &hs[0], len(hs))
		for j, v := range m {
			dst[k+j] = uint64(v)
		}
	}
	for ; k < len(a); k++ {
		dst[k] = uint64(minOver32(a[k], b[k], uint32(dst[k]), hs))
	}
}

// minPerm32x32AVX2 sets m[k] = min(m[k], a[k]*h + b[k] mod 2^32) over the groups*lanes
// hashes h starting at hs, for 32 permutations.
//
//go:noescape
func minPerm32x32AVX2(a, b, m *[32]uint32, hs *[lanes]uint32, groups int)

// minPerm32x8AVX2 is minPerm32x32AVX2 for 8 permutations.
//
//go:noescape
func minPerm32x8AVX2(a, b, m *[8]uint32, hs *[lanes]uint32, groups int)
