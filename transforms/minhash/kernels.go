package minhash

// blockSize is how many shingle hashes are pre-mixed into a stack buffer before the
// permutation loop runs over them: 1 KiB of uint32 stays in L1 and covers a typical
// document in one block.
const blockSize = 256

// accumulate32 is the affine32 hot loop. The hashes of a block are fmix32-ed once into a
// stack buffer, then each group of four permutations keeps its four running minimums in
// registers while it streams the block: per (hash, permutation) one 32-bit multiply, one
// add and one conditional move, with no loads or stores of dst in the inner loop and no
// bounds checks.
func accumulate32(dst []uint64, a, b []uint32, hashes []uint64) {
	var buf [blockSize]uint32
	for len(hashes) > 0 {
		n := min(len(hashes), len(buf))
		hs := buf[:n]
		for i, h := range hashes[:n] {
			hs[i] = Fmix32(uint32(h))
		}
		hashes = hashes[n:]
		minBlock32(dst, a, b, hs)
	}
}

func minBlock32(dst []uint64, a, b []uint32, hs []uint32) {
	b = b[:len(a)]
	dst = dst[:len(a)]
	k := 0
	for ; k+4 <= len(a); k += 4 {
		a0, a1, a2, a3 := a[k], a[k+1], a[k+2], a[k+3]
		b0, b1, b2, b3 := b[k], b[k+1], b[k+2], b[k+3]
		m0, m1, m2, m3 := uint32(dst[k]), uint32(dst[k+1]), uint32(dst[k+2]), uint32(dst[k+3])
		for _, h := range hs {
			m0 = min(m0, a0*h+b0)
			m1 = min(m1, a1*h+b1)
			m2 = min(m2, a2*h+b2)
			m3 = min(m3, a3*h+b3)
		}
		dst[k], dst[k+1], dst[k+2], dst[k+3] = uint64(m0), uint64(m1), uint64(m2), uint64(m3)
	}
	for ; k < len(a); k++ {
		ak, bk, m := a[k], b[k], uint32(dst[k])
		for _, h := range hs {
			m = min(m, ak*h+bk)
		}
		dst[k] = uint64(m)
	}
}

// accumulate64 is the affine64 loop, blocked the same way as accumulate32.
func accumulate64(dst []uint64, a, b []uint64, hashes []uint64) {
	var buf [blockSize]uint64
	for len(hashes) > 0 {
		n := min(len(hashes), len(buf))
		hs := buf[:n]
		for i, h := range hashes[:n] {
			hs[i] = Fmix64(h)
		}
		hashes = hashes[n:]
		minBlock64(dst, a, b, hs)
	}
}

func minBlock64(dst []uint64, a, b []uint64, hs []uint64) {
	b = b[:len(a)]
	dst = dst[:len(a)]
	k := 0
	for ; k+4 <= len(a); k += 4 {
		a0, a1, a2, a3 := a[k], a[k+1], a[k+2], a[k+3]
		b0, b1, b2, b3 := b[k], b[k+1], b[k+2], b[k+3]
		m0, m1, m2, m3 := dst[k], dst[k+1], dst[k+2], dst[k+3]
		for _, h := range hs {
			m0 = min(m0, a0*h+b0)
			m1 = min(m1, a1*h+b1)
			m2 = min(m2, a2*h+b2)
			m3 = min(m3, a3*h+b3)
		}
		dst[k], dst[k+1], dst[k+2], dst[k+3] = m0, m1, m2, m3
	}
	for ; k < len(a); k++ {
		ak, bk, m := a[k], b[k], dst[k]
		for _, h := range hs {
			m = min(m, ak*h+bk)
		}
		dst[k] = m
	}
}

// accumulateLegacy is datasketch 1.x's family: ((a*h + b) mod 2^64) mod (2^61-1), low 32
// bits, with h the low 32 bits of the shingle hash. The Mersenne modulus is taken by
// folding (x mod 2^61 + x >> 61, one conditional subtract), exact for every 64-bit x.
func accumulateLegacy(dst []uint64, a, b []uint64, hashes []uint64) {
	var buf [blockSize]uint64
	for len(hashes) > 0 {
		n := min(len(hashes), len(buf))
		hs := buf[:n]
		for i, h := range hashes[:n] {
			hs[i] = uint64(uint32(h))
		}
		hashes = hashes[n:]
		b := b[:len(a)]
		dst := dst[:len(a)]
		for k, ak := range a {
			bk, m := b[k], dst[k]
			for _, h := range hs {
				m = min(m, mod61(ak*h+bk)&0xFFFFFFFF)
			}
			dst[k] = m
		}
	}
}

// mod61 is x mod (2^61-1).
func mod61(x uint64) uint64 {
	r := x&mersenne61 + x>>61
	if r >= mersenne61 {
		r -= mersenne61
	}
	return r
}
