package lsh

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGaussLegendre(t *testing.T) {
	// Textbook nodes and weights.
	x, w := gaussLegendre(1)
	assert.Equal(t, []float64{0}, x)
	assert.InDelta(t, 2, w[0], 1e-15)
	x, w = gaussLegendre(2)
	assert.InDelta(t, 1/math.Sqrt(3), x[0], 1e-15)
	assert.InDelta(t, -1/math.Sqrt(3), x[1], 1e-15)
	assert.InDelta(t, 1, w[0], 1e-15)
	x, w = gaussLegendre(3)
	assert.InDelta(t, math.Sqrt(0.6), x[0], 1e-15)
	assert.Equal(t, 0.0, x[1])
	assert.InDelta(t, 5.0/9, w[0], 1e-15)
	assert.InDelta(t, 8.0/9, w[1], 1e-15)
	// Exact for monomials up to degree 2n-1: ∫₋₁¹ x^k = 2/(k+1) for even k.
	for _, n := range []int{4, 17, 64, 257, 513} {
		x, w := gaussLegendre(n)
		sum := 0.0
		for _, wi := range w {
			require.Greater(t, wi, 0.0)
			sum += wi
		}
		assert.InDelta(t, 2, sum, 1e-13, "n=%d", n)
		for k := 0; k <= 2*n-1; k += max(1, n/8) {
			got := 0.0
			for i := range x {
				got += w[i] * math.Pow(x[i], float64(k))
			}
			want := 0.0
			if k%2 == 0 {
				want = 2 / float64(k+1)
			}
			assert.InDelta(t, want, got, 1e-13, "n=%d k=%d", n, k)
		}
	}
}

func TestAreasClosedForms(t *testing.T) {
	for _, th := range []float64{0.1, 0.5, 0.8, 0.95, 1} {
		for _, r := range []int{1, 2, 7, 30} {
			tr1 := math.Pow(th, float64(r+1))
			// b = 1: FP = t^(r+1)/(r+1), FN = (1-t) - (1-t^(r+1))/(r+1).
			assert.InDelta(t, tr1/float64(r+1), FalsePositive(th, 1, r), 1e-15)
			assert.InDelta(t, (1-th)-(1-tr1)/float64(r+1), FalseNegative(th, 1, r), 1e-15)
			// b = 2: 1-(1-s^r)² = 2s^r - s^(2r).
			fp2 := 2*tr1/float64(r+1) - math.Pow(th, float64(2*r+1))/float64(2*r+1)
			assert.InDelta(t, fp2, FalsePositive(th, 2, r), 1e-15)
			// FP + ∫₀ᵗ(1-s^r)^b = t and ∫₀ᵗ + ∫ₜ¹ (1-s^r)^b = ∫₀¹ (1-s^r)^b.
			for _, b := range []int{3, 10} {
				whole := FalseNegative(0, b, r)
				assert.InDelta(t, whole, (th-FalsePositive(th, b, r))+FalseNegative(th, b, r), 1e-14)
			}
		}
	}
}

func TestAreasAgainstSimpson(t *testing.T) {
	// An independent numerical method: composite Simpson on a fine grid.
	simpson := func(f func(float64) float64, a, b float64) float64 {
		const n = 20000
		h := (b - a) / n
		s := f(a) + f(b)
		for i := 1; i < n; i++ {
			c := 2.0
			if i%2 == 1 {
				c = 4
			}
			s += c * f(a+float64(i)*h)
		}
		return s * h / 3
	}
	for _, c := range []struct {
		th   float64
		b, r int
	}{{0.8, 9, 13}, {0.5, 25, 5}, {0.9, 16, 32}, {0.7, 42, 12}} {
		fp := simpson(func(s float64) float64 { return Detection(s, c.b, c.r) }, 0, c.th)
		fn := simpson(func(s float64) float64 { return 1 - Detection(s, c.b, c.r) }, c.th, 1)
		assert.InDelta(t, fp, FalsePositive(c.th, c.b, c.r), 1e-11, "%+v", c)
		assert.InDelta(t, fn, FalseNegative(c.th, c.b, c.r), 1e-11, "%+v", c)
	}
}

func TestDetection(t *testing.T) {
	pow := func(x float64, k int) float64 { // repeated multiplication, not math.Pow
		p := 1.0
		for range k {
			p *= x
		}
		return p
	}
	for _, br := range [][2]int{{1, 1}, {9, 13}, {25, 5}, {2, 64}, {128, 1}} {
		b, r := br[0], br[1]
		assert.Equal(t, 0.0, Detection(0, b, r))
		assert.Equal(t, 1.0, Detection(1, b, r))
		prev := -1.0
		for i := 0; i <= 1000; i++ {
			s := float64(i) / 1000
			d := Detection(s, b, r)
			require.GreaterOrEqual(t, d, prev, "monotone in s at %v for b=%d r=%d", s, b, r)
			require.InDelta(t, 1-pow(1-pow(s, r), b), d, 1e-12)
			prev = d
		}
	}
	assert.InDelta(t, 0.37, Detection(0.37, 1, 1), 1e-16, "one band of one row: P = s")
	// More bands raise the curve, more rows lower it.
	assert.Greater(t, Detection(0.6, 10, 5), Detection(0.6, 9, 5))
	assert.Less(t, Detection(0.6, 10, 6), Detection(0.6, 10, 5))
}

func TestOptimalParamsValidation(t *testing.T) {
	for _, c := range []struct {
		th     float64
		n      int
		fp, fn float64
		msg    string
	}{
		{0, 128, 0.5, 0.5, "threshold"},
		{-0.1, 128, 0.5, 0.5, "threshold"},
		{1.01, 128, 0.5, 0.5, "threshold"},
		{math.NaN(), 128, 0.5, 0.5, "threshold"},
		{0.8, 1, 0.5, 0.5, "num_perm"},
		{0.8, 0, 0.5, 0.5, "num_perm"},
		{0.8, 128, 0.5, 0.6, "sum to 1.0"},
		{0.8, 128, -0.1, 1.1, "[0, 1]"},
		{0.8, 128, math.NaN(), 0.5, "[0, 1]"},
	} {
		_, err := OptimalParams(c.th, c.n, c.fp, c.fn)
		require.Error(t, err, "%+v", c)
		assert.ErrorContains(t, err, c.msg)
		assert.False(t, errors.Is(err, ErrTooFewBands))
	}
	// Weights that sum to exactly 1.0 in float64 pass validation, as in
	// datasketch. (1, 0) only penalizes false positives, so its optimum is a
	// single band of all rows, refused for b < 2 rather than as invalid input.
	for _, w := range [][2]float64{{0.1, 0.9}, {0.3, 0.7}, {0, 1}} {
		_, err := OptimalParams(0.5, 64, w[0], w[1])
		assert.NoError(t, err, "%v", w)
	}
	p, err := OptimalParams(0.5, 64, 1, 0)
	assert.ErrorIs(t, err, ErrTooFewBands)
	assert.Equal(t, Params{Bands: 1, Rows: 64}, Params{Bands: p.Bands, Rows: p.Rows})
}

func TestTooFewBandsError(t *testing.T) {
	p, err := OptimalParams(0.9, 16, 0.5, 0.5)
	require.ErrorIs(t, err, ErrTooFewBands)
	assert.Equal(t, 1, p.Bands, "the refused optimum is still reported")
	assert.ErrorContains(t, err, "b < 2")
	assert.ErrorContains(t, err, "more permutations")
	assert.ErrorContains(t, err, "lower threshold")
	// Threshold 1 is valid input but only a single band can serve it.
	_, err = OptimalParams(1, 128, 0.5, 0.5)
	assert.ErrorIs(t, err, ErrTooFewBands)
}

func TestSmallNumPerm(t *testing.T) {
	// Exhaustively re-derive the choice for small num_perm with a direct search
	// that integrates each (b, r) separately at its own exact degree.
	for n := 2; n <= 24; n++ {
		for _, th := range []float64{0.3, 0.5, 0.75} {
			bestErr, wb, wr := math.Inf(1), 0, 0
			for b := 1; b <= n; b++ {
				for r := 1; r <= n/b; r++ {
					e := 0.5*FalsePositive(th, b, r) + 0.5*FalseNegative(th, b, r)
					if e < bestErr {
						bestErr, wb, wr = e, b, r
					}
				}
			}
			p, err := OptimalParams(th, n, 0.5, 0.5)
			if wb < 2 {
				require.ErrorIs(t, err, ErrTooFewBands)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, [2]int{wb, wr}, [2]int{p.Bands, p.Rows}, "n=%d t=%v", n, th)
		}
	}
}

func TestBandBytesLayout(t *testing.T) {
	sig := []uint64{0x01020304, 0x0a0b0c0d, 0xdeadbeef, 0xffffffff}
	assert.Equal(t, []byte{1, 2, 3, 4, 0x0a, 0x0b, 0x0c, 0x0d}, BandBytes(sig, 4, 0, 2))
	assert.Equal(t, []byte{0xde, 0xad, 0xbe, 0xef, 0xff, 0xff, 0xff, 0xff}, BandBytes(sig, 4, 1, 2))
	assert.Equal(t, []byte{0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef}, BandBytes(sig, 8, 2, 1))
	sig64 := []uint64{0x0102030405060708}
	assert.Equal(t, []byte{1, 2, 3, 4, 5, 6, 7, 8}, BandBytes(sig64, 8, 0, 1))
	assert.Equal(t, []byte{9, 1, 2, 3, 4, 5, 6, 7, 8}, AppendBandBytes([]byte{9}, sig64, 8, 0, 1))

	assert.Panics(t, func() { BandBytes(sig64, 4, 0, 1) }, "value does not fit 4 bytes")
	assert.Panics(t, func() { BandBytes(sig, 2, 0, 1) }, "bad width")
	assert.Panics(t, func() { BandBytes(sig, 4, 2, 2) }, "band past the end")
	assert.Panics(t, func() { BandBytes(sig, 4, -1, 2) })
	assert.Panics(t, func() { BandBytes(sig, 4, 0, 0) })
}

func TestBandKey(t *testing.T) {
	ref := func(values []uint64, band, rows int) uint64 {
		var b []byte
		for _, v := range values[band*rows : (band+1)*rows] {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
		h := xxhash.Sum64(b) ^ uint64(band)*0x9e3779b97f4a7c15
		// MurmurHash3 fmix64, written out from the reference implementation.
		h = (h ^ h>>33) * 0xff51afd7ed558ccd
		h = (h ^ h>>33) * 0xc4ceb9fe1a85ec53
		return h ^ h>>33
	}
	sig := make([]uint64, 128)
	for i := range sig {
		sig[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	keys := map[uint64]bool{}
	for band := range 9 {
		k := BandKey(sig, band, 13)
		assert.Equal(t, ref(sig, band, 13), k)
		assert.False(t, keys[k], "distinct bands, distinct keys")
		keys[k] = true
	}
	assert.Equal(t, ref(sig, 0, 100), BandKey(sig, 0, 100))

	// Equal values in different bands get different keys.
	same := []uint64{7, 7, 7, 7}
	assert.NotEqual(t, BandKey(same, 0, 2), BandKey(same, 1, 2))
	// Only the band's own values matter.
	other := append([]uint64(nil), sig...)
	other[127] ^= 1
	assert.Equal(t, BandKey(sig, 0, 13), BandKey(other, 0, 13))
	other[5] ^= 1
	assert.NotEqual(t, BandKey(sig, 0, 13), BandKey(other, 0, 13))

	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = BandKey(sig, 3, 13) }))
	assert.Panics(t, func() { BandKey(sig, 10, 13) })
}

func BenchmarkOptimalParams(b *testing.B) {
	for _, n := range []int{128, 512} {
		b.Run(map[int]string{128: "128", 512: "512"}[n], func(b *testing.B) {
			for b.Loop() {
				_, _ = OptimalParams(0.8, n, 0.5, 0.5)
			}
		})
	}
}

func BenchmarkBandKey(b *testing.B) {
	sig := make([]uint64, 128)
	for i := range sig {
		sig[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	for b.Loop() {
		for band := range 9 {
			_ = BandKey(sig, band, 13)
		}
	}
}
