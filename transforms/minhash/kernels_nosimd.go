//go:build !(goexperiment.simd && amd64)

package minhash

// Without GOEXPERIMENT=simd on amd64 the affine32 kernel is plain Go only.
const useAVX2 = false

func minBlock32AVX2(dst []uint64, a, b []uint32, hs [][lanes]uint32) {
	panic("minhash: AVX2 kernel not built")
}
