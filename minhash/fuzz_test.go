package minhash

import (
	"bytes"
	"testing"
)

// FuzzUnmarshalLean feeds arbitrary bytes to the LeanMinHash decoder: it must never
// panic, and whatever it accepts must re-encode to the same bytes and decode again to
// an equal MinHash.
func FuzzUnmarshalLean(f *testing.F) {
	s, err := NewSigner(Affine32, 1, 4)
	if err != nil {
		f.Fatal(err)
	}
	for _, order := range []byte{'<', '>', '@'} {
		for _, scheme := range []Scheme{Affine32, Affine64, Legacy} {
			sg, err := NewSigner(scheme, 7, 3)
			if err != nil {
				f.Fatal(err)
			}
			b, err := sg.Sign([]uint64{1, 2, 3}).MarshalLean(order)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, order)
		}
	}
	empty, _ := s.New().MarshalLean('<')
	f.Add(empty, byte('<'))
	f.Add([]byte{}, byte('<'))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, byte('>'))
	f.Fuzz(func(t *testing.T, b []byte, order byte) {
		m, err := UnmarshalLean(b, order)
		if err != nil {
			return
		}
		out, err := m.MarshalLean(order)
		if err != nil {
			t.Fatalf("decoded %x but cannot re-encode: %v", b, err)
		}
		if order != '@' && order != '=' && !bytes.Equal(out, b) {
			t.Fatalf("round trip changed the bytes:\n in  %x\n out %x", b, out)
		}
		again, err := UnmarshalLean(out, order)
		if err != nil {
			t.Fatalf("re-encoded bytes do not decode: %v", err)
		}
		if again.Scheme != m.Scheme || again.Seed != m.Seed || len(again.Values) != len(m.Values) {
			t.Fatalf("round trip changed the MinHash: %+v vs %+v", again, m)
		}
		for i := range m.Values {
			if again.Values[i] != m.Values[i] {
				t.Fatalf("round trip changed value %d", i)
			}
		}
	})
}
