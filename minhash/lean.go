package minhash

import (
	"encoding/binary"
	"fmt"
	"math"
)

// datasketch 2.0's LeanMinHash.serialize layout, a Python struct format:
//
//	legacy:  seed int64 'q', num_perm int32 'i' (> 0), values uint32 'I' x num_perm
//	affine:  seed int64 'q', -num_perm int32 'i' (< 0), scheme byte 'B' (1 affine32,
//	         2 affine64), values 'I' (affine32) or 'Q' (affine64) x num_perm
//
// The negative count marks the 2.0 layout, so a buffer written by datasketch 1.x (which
// only had the legacy family) still reads back as legacy. Byte order '<' and '>' (also
// '!') have no padding; '@' is native order with native alignment, which pads the 13-byte
// affine header to 16 bytes; '=' is native order without padding.
const (
	leanAffine32 = 1
	leanAffine64 = 2
)

// leanLayout resolves a struct byte-order character.
func leanLayout(order byte) (binary.ByteOrder, bool, error) {
	switch order {
	case '<':
		return binary.LittleEndian, false, nil
	case '>', '!':
		return binary.BigEndian, false, nil
	case '=':
		return binary.NativeEndian, false, nil
	case '@':
		return binary.NativeEndian, true, nil
	}
	return nil, false, fmt.Errorf("minhash: lean byte order %q is not one of '@', '=', '<', '>', '!'", order)
}

// leanHeader is the byte offset of the first value and the size of one value.
func leanHeader(scheme Scheme, aligned bool) (off, width int) {
	switch scheme {
	case Affine32:
		off, width = 13, 4
	case Affine64:
		off, width = 13, 8
	default:
		return 12, 4
	}
	if aligned {
		off = (off + width - 1) / width * width
	}
	return off, width
}

// LeanSize is the length of MarshalLean's output (datasketch's LeanMinHash.bytesize).
func (m *MinHash) LeanSize(order byte) (int, error) {
	_, aligned, err := leanLayout(order)
	if err != nil {
		return 0, err
	}
	if err := m.Scheme.valid(); err != nil {
		return 0, err
	}
	off, width := leanHeader(m.Scheme, aligned)
	return off + width*len(m.Values), nil
}

// MarshalLean serializes m exactly as datasketch's LeanMinHash(m).serialize(buf, order).
func (m *MinHash) MarshalLean(order byte) ([]byte, error) {
	bo, aligned, err := leanLayout(order)
	if err != nil {
		return nil, err
	}
	if err := m.Scheme.valid(); err != nil {
		return nil, err
	}
	n := len(m.Values)
	if n < 1 || n > math.MaxInt32 {
		return nil, fmt.Errorf("minhash: cannot serialize a signature of %d values", n)
	}
	off, width := leanHeader(m.Scheme, aligned)
	buf := make([]byte, off+width*n)
	bo.PutUint64(buf[0:], uint64(m.Seed))
	switch m.Scheme {
	case Legacy:
		bo.PutUint32(buf[8:], uint32(int32(n)))
	case Affine32:
		bo.PutUint32(buf[8:], uint32(-int32(n)))
		buf[12] = leanAffine32
	case Affine64:
		bo.PutUint32(buf[8:], uint32(-int32(n)))
		buf[12] = leanAffine64
	}
	for i, v := range m.Values {
		p := buf[off+i*width:]
		if width == 8 {
			bo.PutUint64(p, v)
			continue
		}
		if v > math.MaxUint32 {
			return nil, fmt.Errorf("minhash: %s value %d at slot %d does not fit 32 bits", m.Scheme, v, i)
		}
		bo.PutUint32(p, uint32(v))
	}
	return buf, nil
}

// UnmarshalLean reads a datasketch LeanMinHash buffer written with byte order order. The
// scheme comes from the buffer itself (a positive count means legacy). The buffer must be
// exactly LeanSize long: short, long or garbled input is an error.
func UnmarshalLean(b []byte, order byte) (*MinHash, error) {
	bo, aligned, err := leanLayout(order)
	if err != nil {
		return nil, err
	}
	if len(b) < 12 {
		return nil, fmt.Errorf("minhash: lean buffer of %d bytes is shorter than the 12-byte header", len(b))
	}
	m := &MinHash{Seed: int64(bo.Uint64(b[0:]))}
	count := int32(bo.Uint32(b[8:]))
	var n int
	switch {
	case count > 0:
		m.Scheme, n = Legacy, int(count)
	case count < 0 && count != math.MinInt32:
		n = -int(count)
		if len(b) < 13 {
			return nil, fmt.Errorf("minhash: lean buffer of %d bytes ends before its scheme byte", len(b))
		}
		switch b[12] {
		case leanAffine32:
			m.Scheme = Affine32
		case leanAffine64:
			m.Scheme = Affine64
		default:
			return nil, fmt.Errorf("minhash: lean buffer has unknown scheme byte %d (want %d affine32 or %d affine64)", b[12], leanAffine32, leanAffine64)
		}
	default:
		return nil, fmt.Errorf("minhash: lean buffer has invalid num_perm field %d", count)
	}
	off, width := leanHeader(m.Scheme, aligned)
	if want := off + width*n; len(b) != want {
		return nil, fmt.Errorf("minhash: lean %s buffer with num_perm %d must be %d bytes in byte order %q, got %d", m.Scheme, n, want, order, len(b))
	}
	if m.Seed < 0 || m.Seed > math.MaxUint32 {
		return nil, fmt.Errorf("minhash: lean buffer has seed %d outside numpy's 0..2**32-1", m.Seed)
	}
	m.Values = make([]uint64, n)
	for i := range m.Values {
		p := b[off+i*width:]
		if width == 8 {
			m.Values[i] = bo.Uint64(p)
		} else {
			m.Values[i] = uint64(bo.Uint32(p))
		}
	}
	return m, nil
}
