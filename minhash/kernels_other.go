//go:build !amd64

package minhash

// The AVX2 kernel exists on amd64 only.
var useAVX2 = false

func minBlock32AVX2(dst []uint64, a, b []uint32, hs [][lanes]uint32) {
	panic("minhash: no AVX2 kernel on this architecture")
}
