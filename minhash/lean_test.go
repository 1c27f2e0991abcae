package minhash

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLeanRoundTripAllOrders(t *testing.T) {
	for _, scheme := range []Scheme{Affine32, Affine64, Legacy} {
		s, err := NewSigner(scheme, 99, 5)
		require.NoError(t, err)
		m := s.Sign([]uint64{10, 20, 30})
		for _, order := range []byte{'@', '=', '<', '>', '!'} {
			b, err := m.MarshalLean(order)
			require.NoError(t, err)
			back, err := UnmarshalLean(b, order)
			require.NoError(t, err, "%s %c", scheme, order)
			assert.Equal(t, m, back, "%s %c", scheme, order)
		}
	}
}

func TestLeanErrors(t *testing.T) {
	s, err := NewSigner(Affine32, 1, 4)
	require.NoError(t, err)
	m := s.Sign([]uint64{1})
	good, err := m.MarshalLean('<')
	require.NoError(t, err)

	_, err = m.MarshalLean('x')
	assert.ErrorContains(t, err, `byte order 'x'`)
	_, err = UnmarshalLean(good, 'x')
	assert.ErrorContains(t, err, `byte order 'x'`)

	_, err = UnmarshalLean(good[:5], '<')
	assert.ErrorContains(t, err, "shorter than the 12-byte header")
	_, err = UnmarshalLean(good[:12], '<')
	assert.ErrorContains(t, err, "ends before its scheme byte")
	_, err = UnmarshalLean(good[:len(good)-1], '<')
	assert.ErrorContains(t, err, "must be 29 bytes")
	_, err = UnmarshalLean(append(append([]byte(nil), good...), 0), '<')
	assert.ErrorContains(t, err, "got 30")

	garbled := append([]byte(nil), good...)
	garbled[12] = 7
	_, err = UnmarshalLean(garbled, '<')
	assert.ErrorContains(t, err, "unknown scheme byte 7")

	zero := append([]byte(nil), good...)
	copy(zero[8:12], []byte{0, 0, 0, 0})
	_, err = UnmarshalLean(zero, '<')
	assert.ErrorContains(t, err, "invalid num_perm field 0")

	// Read with the wrong byte order, the count is garbage and the length cannot match.
	_, err = UnmarshalLean(good, '>')
	assert.Error(t, err)

	badSeed := append([]byte(nil), good...)
	badSeed[7] = 0x80
	_, err = UnmarshalLean(badSeed, '<')
	assert.ErrorContains(t, err, "outside numpy's")

	wide := &MinHash{Scheme: Legacy, Seed: 1, Values: []uint64{1 << 40}}
	_, err = wide.MarshalLean('<')
	assert.ErrorContains(t, err, "does not fit 32 bits")
	_, err = (&MinHash{Scheme: Affine32, Seed: 1}).MarshalLean('<')
	assert.ErrorContains(t, err, "0 values")
}
