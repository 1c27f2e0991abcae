package segment

import (
	"fmt"
	"math/bits"
)

// Elias–Fano coding of a sorted, duplicate-free set of n values below 2^w: each value is
// split into l = ⌊log2(2^w/n)⌋ low bits, stored as they are, and a high part, stored in
// unary as a bit set at position high+i. That takes n·l + n + 2^w/2^l < n·(l+3) bits,
// within about two bits per value of the set's information content, and decodes with
// a scan of the high bits.

// lowBits is l for n values below 2^w.
func lowBits(n, w int) int {
	if n == 0 {
		return 0
	}
	// ⌊log2(2^w / n)⌋ = w - ⌈log2 n⌉ when n is a power of two, else w - ⌊log2 n⌋ - 1.
	l := w - bits.Len(uint(n))
	if n&(n-1) == 0 {
		l++
	}
	return max(0, l)
}

// efBytes is the encoded size of n values below 2^w whose largest is last.
func efBytes(n, w int, last uint64) int {
	if n == 0 {
		return 0
	}
	l := lowBits(n, w)
	highBits := int(last>>l) + n
	return (n*l + highBits + 7) / 8
}

// appendEF appends the encoding of vs (ascending, distinct, all below 2^w) to dst.
func appendEF(dst []byte, vs []uint64, w int) []byte {
	n := len(vs)
	if n == 0 {
		return dst
	}
	l := lowBits(n, w)
	size := efBytes(n, w, vs[n-1])
	start := len(dst)
	dst = append(dst, make([]byte, size)...)
	out := dst[start:]
	mask := uint64(1)<<l - 1
	if l == 64 {
		mask = ^uint64(0)
	}
	pos := 0 // bit position
	put := func(v uint64, width int) {
		for width > 0 {
			i, off := pos/8, pos%8
			take := min(8-off, width)
			out[i] |= byte(v&(1<<take-1)) << off
			v >>= take
			width -= take
			pos += take
		}
	}
	for _, v := range vs {
		put(v&mask, l)
	}
	for i, v := range vs {
		p := n*l + int(v>>l) + i
		out[p/8] |= 1 << (p % 8)
	}
	return dst
}

// decodeEF appends the n values encoded in b (w-bit values) to dst. It fails when b is
// not a valid encoding of n ascending distinct values.
func decodeEF(dst []uint64, b []byte, n, w int) ([]uint64, error) {
	if n == 0 {
		if len(b) != 0 {
			return dst, fmt.Errorf("empty set with %d bytes of values", len(b))
		}
		return dst, nil
	}
	l := lowBits(n, w)
	if n*l > len(b)*8 {
		return dst, fmt.Errorf("%d values need %d low bits, have %d bytes", n, n*l, len(b))
	}
	start := len(dst)
	// Low bits, read 8 bytes at a time where possible.
	bit := 0
	get := func(width int) uint64 {
		var v uint64
		got := 0
		for got < width {
			i, off := bit/8, bit%8
			take := min(8-off, width-got)
			v |= uint64(b[i]>>off&(1<<take-1)) << got
			got += take
			bit += take
		}
		return v
	}
	for range n {
		dst = append(dst, get(l))
	}
	// High parts: the i-th set bit at position p gives high p - i.
	base := n * l
	i := 0
	for byteIdx := base / 8; byteIdx < len(b) && i < n; byteIdx++ {
		x := b[byteIdx]
		if byteIdx == base/8 {
			x &^= 1<<(base%8) - 1
		}
		for x != 0 && i < n {
			t := bits.TrailingZeros8(x)
			x &= x - 1
			p := byteIdx*8 + t - base
			dst[start+i] |= uint64(p-i) << l
			i++
		}
	}
	if i < n {
		return dst, fmt.Errorf("%d of %d values present", i, n)
	}
	vs := dst[start:]
	for j := 1; j < len(vs); j++ {
		if vs[j] <= vs[j-1] {
			return dst, fmt.Errorf("values not ascending at %d", j)
		}
	}
	if w < 64 && vs[len(vs)-1]>>w != 0 {
		return dst, fmt.Errorf("value wider than %d bits", w)
	}
	return dst, nil
}
