package minhash

// blockSize is how many shingle hashes are pre-mixed into a stack buffer before the
// permutation loop runs over them: 1 KiB of uint32 stays in L1 and covers a typical
// document in one block. It is a multiple of lanes.
const blockSize = 256

// lanes is the inner loop's unroll: hashes are grouped in arrays of eight so the loop
// over a block ranges over [8]uint32 values with no bounds checks and no tail. A short
// last group is padded with copies of a hash already in the block, which cannot change a
// minimum.
const lanes = 8

// The plain-Go kernels are bound by the multiplier (one 32- or 64-bit multiply per cycle
// on x86-64), so the loop is shaped to keep everything else cheap: the permutation loop is
// outside and the loop over a block's hashes is a small non-inlined function whose a, b
// and running minimum stay in registers (inlined, the Go register allocator spilled the
// outer loop's slices and reloaded them on every iteration); the eight products of a
// group are reduced by a balanced min tree, so only one compare-and-move per group sits
// on the loop-carried chain.

// accumulate32 is the affine32 hot loop.
func accumulate32(dst []uint64, a, b []uint32, hashes []uint64) {
	var buf [blockSize / lanes][lanes]uint32
	for len(hashes) > 0 {
		n := min(len(hashes), blockSize)
		groups := (n + lanes - 1) / lanes
		for i, h := range hashes[:n] {
			buf[i/lanes][i%lanes] = Fmix32(uint32(h))
		}
		for i := n; i < groups*lanes; i++ {
			buf[i/lanes][i%lanes] = buf[0][0]
		}
		if useAVX2 {
			minBlock32AVX2(dst, a, b, buf[:groups])
		} else {
			minBlock32(dst, a, b, buf[:groups])
		}
		hashes = hashes[n:]
	}
}

func minBlock32(dst []uint64, a, b []uint32, hs [][lanes]uint32) {
	b = b[:len(a)]
	dst = dst[:len(a)]
	for k, ak := range a {
		dst[k] = uint64(minOver32(ak, b[k], uint32(dst[k]), hs))
	}
}

// minOver32 is min(m, a*h+b mod 2^32 for every h in hs).
//
//go:noinline
func minOver32(a, b, m uint32, hs [][lanes]uint32) uint32 {
	for i := range hs {
		q := &hs[i]
		y0 := min(min(a*q[0]+b, a*q[1]+b), min(a*q[2]+b, a*q[3]+b))
		y1 := min(min(a*q[4]+b, a*q[5]+b), min(a*q[6]+b, a*q[7]+b))
		m = min(m, min(y0, y1))
	}
	return m
}

// accumulate64 is the affine64 loop, shaped like accumulate32.
func accumulate64(dst []uint64, a, b []uint64, hashes []uint64) {
	var buf [blockSize / lanes][lanes]uint64
	for len(hashes) > 0 {
		n := min(len(hashes), blockSize)
		for i, h := range hashes[:n] {
			buf[i/lanes][i%lanes] = Fmix64(h)
		}
		groups := (n + lanes - 1) / lanes
		for i := n; i < groups*lanes; i++ {
			buf[i/lanes][i%lanes] = buf[0][0]
		}
		minBlock64(dst, a, b, buf[:groups])
		hashes = hashes[n:]
	}
}

func minBlock64(dst []uint64, a, b []uint64, hs [][lanes]uint64) {
	b = b[:len(a)]
	dst = dst[:len(a)]
	for k, ak := range a {
		dst[k] = minOver64(ak, b[k], dst[k], hs)
	}
}

// minOver64 is min(m, a*h+b mod 2^64 for every h in hs).
//
//go:noinline
func minOver64(a, b, m uint64, hs [][lanes]uint64) uint64 {
	for i := range hs {
		q := &hs[i]
		y0 := min(min(a*q[0]+b, a*q[1]+b), min(a*q[2]+b, a*q[3]+b))
		y1 := min(min(a*q[4]+b, a*q[5]+b), min(a*q[6]+b, a*q[7]+b))
		m = min(m, min(y0, y1))
	}
	return m
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
