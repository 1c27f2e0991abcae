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
// on x86-64), so the loop is shaped to keep everything else off the critical path: the
// permutation loop is outside, its a, b and running minimum live in registers, and the
// eight products of a group are reduced by a short min tree before touching the
// accumulator. Four permutations at a time (one hash load shared by four products) ran
// slower because the Go register allocator spills the sixteen live values.

// accumulate32 is the affine32 hot loop.
func accumulate32(dst []uint64, a, b []uint32, hashes []uint64) {
	var buf [blockSize / lanes][lanes]uint32
	for len(hashes) > 0 {
		n := min(len(hashes), blockSize)
		for i, h := range hashes[:n] {
			buf[i/lanes][i%lanes] = Fmix32(uint32(h))
		}
		groups := (n + lanes - 1) / lanes
		for i := n; i < groups*lanes; i++ {
			buf[i/lanes][i%lanes] = buf[0][0]
		}
		minBlock32(dst, a, b, buf[:groups])
		hashes = hashes[n:]
	}
}

func minBlock32(dst []uint64, a, b []uint32, hs [][lanes]uint32) {
	b = b[:len(a)]
	dst = dst[:len(a)]
	for k, ak := range a {
		bk, m := b[k], uint32(dst[k])
		for i := range hs {
			q := &hs[i]
			x0, x1 := ak*q[0]+bk, ak*q[1]+bk
			x2, x3 := ak*q[2]+bk, ak*q[3]+bk
			y := min(x0, x1, x2, x3)
			x0, x1 = ak*q[4]+bk, ak*q[5]+bk
			x2, x3 = ak*q[6]+bk, ak*q[7]+bk
			m = min(m, y, min(x0, x1), min(x2, x3))
		}
		dst[k] = uint64(m)
	}
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
		bk, m := b[k], dst[k]
		for i := range hs {
			q := &hs[i]
			x0, x1 := ak*q[0]+bk, ak*q[1]+bk
			x2, x3 := ak*q[2]+bk, ak*q[3]+bk
			y := min(x0, x1, x2, x3)
			x0, x1 = ak*q[4]+bk, ak*q[5]+bk
			x2, x3 = ak*q[6]+bk, ak*q[7]+bk
			m = min(m, y, min(x0, x1), min(x2, x3))
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
