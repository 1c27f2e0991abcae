// Package wire is the compact binary encoding of the pipeline's batches: varints, 8-byte
// words for hashes, length-prefixed strings, a batch framed by its item count. Beam's
// default row coder encodes a struct field by field through reflection; the coders built
// on this package write each batch in one pass (registered by the packages that own the
// batch types, with RegisterCoder).
package wire

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Encoder appends values to B.
type Encoder struct {
	B     []byte
	front string // what Front wrote last
}

func (e *Encoder) Uvarint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }
func (e *Encoder) Varint(v int64)   { e.B = binary.AppendVarint(e.B, v) }
func (e *Encoder) U64(v uint64)     { e.B = binary.LittleEndian.AppendUint64(e.B, v) }
func (e *Encoder) F64(v float64)    { e.U64(math.Float64bits(v)) }
func (e *Encoder) Str(s string)     { e.Uvarint(uint64(len(s))); e.B = append(e.B, s...) }
func (e *Encoder) Bool(v bool) {
	var b byte
	if v {
		b = 1
	}
	e.B = append(e.B, b)
}
func (e *Encoder) Hashes(h []uint64) { e.Uvarint(uint64(len(h))); e.B = appendWords(e.B, h) }

func appendWords(b []byte, h []uint64) []byte {
	for _, v := range h {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

// Words decodes b, little-endian 8-byte words as Encoder.Hashes writes them after their
// count, into dst's memory, or a slice of its own when dst is nil (never nil, even for
// no words).
func Words(dst []uint64, b []byte) []uint64 {
	n := len(b) / 8
	if dst == nil {
		dst = make([]uint64, 0, n)
	}
	dst = slices.Grow(dst[:0], n)[:n]
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return dst
}

// Decoder reads what Encoder wrote; the first error sticks and later reads return zeros.
type Decoder struct {
	B   []byte
	Err error
	// Whole, when set, holds B's bytes as one string, and Str returns substrings of it:
	// one allocation per batch instead of one per string, since ids are many small
	// strings whose allocation and marking by the collector would dominate decoding.
	Whole string

	front string // what Front read last
	arena []byte // Front's joined strings: they share a few allocations
}

// Fail records that what could not be read, unless an error came first, and stops
// the reading.
func (d *Decoder) Fail(what string) {
	if d.Err == nil {
		d.Err = fmt.Errorf("decode batch: truncated %s", what)
	}
	d.B = nil
}

func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.B)
	if n <= 0 {
		d.Fail("varint")
		return 0
	}
	d.B = d.B[n:]
	return v
}

func (d *Decoder) Varint() int64 {
	v, n := binary.Varint(d.B)
	if n <= 0 {
		d.Fail("varint")
		return 0
	}
	d.B = d.B[n:]
	return v
}

func (d *Decoder) U64() uint64 {
	if len(d.B) < 8 {
		d.Fail("word")
		return 0
	}
	v := binary.LittleEndian.Uint64(d.B)
	d.B = d.B[8:]
	return v
}

func (d *Decoder) F64() float64 { return math.Float64frombits(d.U64()) }

func (d *Decoder) Str() string {
	n := d.Uvarint()
	if uint64(len(d.B)) < n {
		d.Fail("string")
		return ""
	}
	return d.take(int(n))
}

// take returns B's first n bytes as a string (a substring of Whole, when set) and
// moves past them.
func (d *Decoder) take(n int) string {
	var s string
	if d.Whole != "" {
		off := len(d.Whole) - len(d.B)
		s = d.Whole[off : off+n]
	} else {
		s = string(d.B[:n])
	}
	d.B = d.B[n:]
	return s
}

func (d *Decoder) Bool() bool {
	if len(d.B) < 1 {
		d.Fail("bool")
		return false
	}
	v := d.B[0] != 0
	d.B = d.B[1:]
	return v
}

func (d *Decoder) Hashes() []uint64 {
	n := d.Uvarint()
	if uint64(len(d.B))/8 < n {
		d.Fail("hashes")
		return nil
	}
	h := Words(nil, d.B[:8*n])
	d.B = d.B[8*n:]
	return h
}

// End is the Decoder's error, or one for bytes left over.
func (d *Decoder) End() error {
	if d.Err == nil && len(d.B) != 0 {
		d.Err = fmt.Errorf("decode batch: %d trailing bytes", len(d.B))
	}
	return d.Err
}

// EncodeAll and DecodeAll frame a batch: its length, then each item.
func EncodeAll[T any](items []T, size int, put func(*Encoder, T)) []byte {
	e := Encoder{B: make([]byte, 0, size)}
	e.Uvarint(uint64(len(items)))
	for _, it := range items {
		put(&e, it)
	}
	return e.B
}

func DecodeAll[T any](b []byte, get func(*Decoder) T) ([]T, error) {
	d := Decoder{B: b}
	items := DecodeItems(&d, get)
	return items, d.End()
}

// DecodeItems reads a batch's count and then its items, leaving d after them (a batch
// framed with more after it, such as spill file names, goes on from there).
func DecodeItems[T any](d *Decoder, get func(*Decoder) T) []T {
	n := d.Uvarint()
	if n > uint64(len(d.B)) { // every item takes at least one byte
		if d.Err == nil {
			d.Err = fmt.Errorf("decode batch: %d items in %d bytes", n, len(d.B))
		}
		return nil
	}
	items := make([]T, 0, n)
	for i := uint64(0); i < n && d.Err == nil; i++ {
		items = append(items, get(d))
	}
	return items
}
