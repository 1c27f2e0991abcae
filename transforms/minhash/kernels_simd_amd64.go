//go:build goexperiment.simd && amd64

package minhash

import "simd/archsimd"

// useAVX2 selects the AVX2 affine32 kernel. It is built only with GOEXPERIMENT=simd on
// amd64 and used only when the CPU has AVX2; the result is bit-identical to plain Go.
var useAVX2 = archsimd.X86.AVX2()

// minBlock32AVX2 mixes a block of raw 32-bit hashes with fmix32 and folds it into dst.
//
// Permutations are the vector lanes: 32 of them (four vectors of a, b and running
// minimums, twelve of the sixteen YMM registers) take each hash broadcast to all lanes,
// so one hash costs four VPMULLD, VPADDD and VPMINUD for 32 permutations and nothing has
// to be reduced across lanes at the end. Leftover permutations go eight at a time, then
// through the plain-Go loop.
func minBlock32AVX2(dst []uint64, a, b []uint32, hs [][lanes]uint32) {
	fmixBlock32(hs)
	b = b[:len(a)]
	dst = dst[:len(a)]
	k := 0
	for ; k+32 <= len(a); k += 32 {
		var m [32]uint32
		for j := range m {
			m[j] = uint32(dst[k+j])
		}
		minPerm32x32((*[32]uint32)(a[k:k+32]), (*[32]uint32)(b[k:k+32]), &m, hs)
		for j, v := range m {
			dst[k+j] = uint64(v)
		}
	}
	for ; k+8 <= len(a); k += 8 {
		var m [8]uint32
		for j := range m {
			m[j] = uint32(dst[k+j])
		}
		minPerm32x8((*[8]uint32)(a[k:k+8]), (*[8]uint32)(b[k:k+8]), &m, hs)
		for j, v := range m {
			dst[k+j] = uint64(v)
		}
	}
	for ; k < len(a); k++ {
		dst[k] = uint64(minOver32(a[k], b[k], uint32(dst[k]), hs))
	}
	// The compiler does not emit VZEROUPPER yet: without it the dirty upper YMM halves
	// made the SSE code that runs next (crypto/sha1's SHA-NI) about 20x slower.
	archsimd.ClearAVXUpperBits()
}

// fmixBlock32 applies Fmix32 to every hash of the block in place. The shift counts are
// vectors built once outside the loop: archsimd's ShiftAllRight with a constant count
// inside a loop compiled to a slow legacy sequence.
func fmixBlock32(hs [][lanes]uint32) {
	s16 := archsimd.BroadcastUint32x8(16)
	s13 := archsimd.BroadcastUint32x8(13)
	c1 := archsimd.BroadcastUint32x8(0x85ebca6b)
	c2 := archsimd.BroadcastUint32x8(0xc2b2ae35)
	for i := range hs {
		h := archsimd.LoadUint32x8(&hs[i])
		h = h.Xor(h.ShiftRight(s16)).Mul(c1)
		h = h.Xor(h.ShiftRight(s13)).Mul(c2)
		h = h.Xor(h.ShiftRight(s16))
		h.Store(&hs[i])
	}
}

// minPerm32x32 folds the block into the minimums m of 32 permutations (a, b).
func minPerm32x32(a, b, m *[32]uint32, hs [][lanes]uint32) {
	va0 := archsimd.LoadUint32x8((*[8]uint32)(a[0:8]))
	va1 := archsimd.LoadUint32x8((*[8]uint32)(a[8:16]))
	va2 := archsimd.LoadUint32x8((*[8]uint32)(a[16:24]))
	va3 := archsimd.LoadUint32x8((*[8]uint32)(a[24:32]))
	vb0 := archsimd.LoadUint32x8((*[8]uint32)(b[0:8]))
	vb1 := archsimd.LoadUint32x8((*[8]uint32)(b[8:16]))
	vb2 := archsimd.LoadUint32x8((*[8]uint32)(b[16:24]))
	vb3 := archsimd.LoadUint32x8((*[8]uint32)(b[24:32]))
	m0 := archsimd.LoadUint32x8((*[8]uint32)(m[0:8]))
	m1 := archsimd.LoadUint32x8((*[8]uint32)(m[8:16]))
	m2 := archsimd.LoadUint32x8((*[8]uint32)(m[16:24]))
	m3 := archsimd.LoadUint32x8((*[8]uint32)(m[24:32]))
	for i := range hs {
		q := &hs[i]
		for j := range q {
			h := archsimd.BroadcastUint32x8(q[j])
			m0 = m0.Min(h.Mul(va0).Add(vb0))
			m1 = m1.Min(h.Mul(va1).Add(vb1))
			m2 = m2.Min(h.Mul(va2).Add(vb2))
			m3 = m3.Min(h.Mul(va3).Add(vb3))
		}
	}
	m0.Store((*[8]uint32)(m[0:8]))
	m1.Store((*[8]uint32)(m[8:16]))
	m2.Store((*[8]uint32)(m[16:24]))
	m3.Store((*[8]uint32)(m[24:32]))
}

// minPerm32x8 folds the block into the minimums m of 8 permutations (a, b).
func minPerm32x8(a, b, m *[8]uint32, hs [][lanes]uint32) {
	va := archsimd.LoadUint32x8(a)
	vb := archsimd.LoadUint32x8(b)
	vm := archsimd.LoadUint32x8(m)
	for i := range hs {
		q := &hs[i]
		for j := range q {
			vm = vm.Min(archsimd.BroadcastUint32x8(q[j]).Mul(va).Add(vb))
		}
	}
	vm.Store(m)
}
