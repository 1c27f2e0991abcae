package pyrepr

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFloatTable(t *testing.T) {
	// Expected strings are what CPython 3 prints for repr(x).
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{-1, "-1.0"},
		{float64(2) / float64(3), "0.6666666666666666"},
		{float64(1) / float64(3), "0.3333333333333333"},
		{0.1, "0.1"},
		{0.30000000000000004, "0.30000000000000004"},
		{100, "100.0"},
		{12345.678, "12345.678"},
		{1e-4, "0.0001"},
		{0.001, "0.001"},
		{1e-5, "1e-05"},
		{1.5e-5, "1.5e-05"},
		{1e15, "1000000000000000.0"},
		{9999999999999998, "9999999999999998.0"},
		{1e16, "1e+16"},
		{1e22, "1e+22"},
		{123456789012345680, "1.2345678901234568e+17"},
		{1.5e300, "1.5e+300"},
		{5e-324, "5e-324"},
		{1.7976931348623157e308, "1.7976931348623157e+308"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{math.NaN(), "nan"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Float(c.in), "repr(%v)", c.in)
	}
}

// TestFloatMatchesCPython compares against repr() output recorded from CPython
// (testdata/gen_repr.py): random bit patterns, random magnitudes, large integers.
func TestFloatMatchesCPython(t *testing.T) {
	f, err := os.Open("testdata/repr.txt")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		bitsHex, want, ok := strings.Cut(line, " ")
		require.True(t, ok, "malformed line %q", line)
		bits, err := strconv.ParseUint(bitsHex, 16, 64)
		require.NoError(t, err)
		x := math.Float64frombits(bits)
		if !assert.Equal(t, want, Float(x), "bits %s", bitsHex) {
			continue
		}
		// The output must also parse back to the same value (round trip).
		if !math.IsInf(x, 0) {
			back, err := strconv.ParseFloat(want, 64)
			require.NoError(t, err)
			assert.Equal(t, bits, math.Float64bits(back))
		}
		n++
	}
	require.NoError(t, sc.Err())
	assert.Greater(t, n, 2000, "the CPython table should hold thousands of values")
}

func BenchmarkFloat(b *testing.B) {
	for b.Loop() {
		_ = Float(0.6666666666666666)
	}
}
