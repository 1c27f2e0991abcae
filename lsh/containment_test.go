package lsh

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every group meets the recall target at threshold+margin and its worst size ratio,
// and uses at most numPerm permutations.
func TestContainmentParamsMeetTheTargetAtTheWorstRatio(t *testing.T) {
	for _, th := range []float64{0.5, 0.7, 0.8, 0.9} {
		for _, n := range []int{64, 128, 256} {
			s, err := ContainmentParams(th, n, DefaultRecallMargin, DefaultRecallTarget)
			require.NoError(t, err)
			require.NotEmpty(t, s.Groups)
			for d, g := range s.Groups {
				assert.Equal(t, d, g.Distance)
				assert.Equal(t, math.Ldexp(1, d+1), g.MaxRatio)
				assert.LessOrEqual(t, g.Bands*g.Rows, n)
				c := min(1, th+DefaultRecallMargin)
				assert.GreaterOrEqual(t, s.Detection(c, g.MaxRatio, d), DefaultRecallTarget, "t=%v n=%d d=%d", th, n, d)
				// Smaller ratios only help.
				assert.GreaterOrEqual(t, s.Detection(c, g.MaxRatio/2, d), s.Detection(c, g.MaxRatio, d))
			}
		}
	}
	s, err := ContainmentParams(0.8, 128, DefaultRecallMargin, DefaultRecallTarget)
	require.NoError(t, err)
	assert.Len(t, s.Groups, 4, "0.8 at 128 permutations reaches class distance 3")
}

func TestSizeClass(t *testing.T) {
	for n, want := range map[int]int{1: 0, 2: 1, 3: 1, 4: 2, 1023: 9, 1024: 10} {
		assert.Equal(t, want, SizeClass(n), "n=%d", n)
	}
}

// Two sets d classes apart with equal signatures meet in exactly the bands of group d;
// sets further apart than the last group never meet, and an empty set has no keys.
func TestContainmentKeysMeetOnlyInTheirGroup(t *testing.T) {
	s, err := ContainmentParams(0.8, 128, DefaultRecallMargin, DefaultRecallTarget)
	require.NoError(t, err)
	sig := make([]uint64, 128)
	for i := range sig {
		sig[i] = uint64(i) * 7919
	}
	keys := func(size int) []uint64 {
		ks := s.AppendKeys(nil, sig, size)
		require.Len(t, ks, s.Keys())
		return ks
	}
	meets := func(a, b []uint64) int {
		n := 0
		for _, x := range a {
			for _, y := range b {
				if Bucket(x) == Bucket(y) && s.Meets(x, y) {
					assert.True(t, s.Meets(y, x), "symmetric")
					n++
				}
			}
		}
		return n
	}
	small := keys(100) // class 6
	for d, g := range s.Groups {
		assert.Equal(t, g.Bands, meets(small, keys(100<<d)), "distance %d", d)
	}
	assert.Zero(t, meets(small, keys(100<<len(s.Groups))), "classes beyond the last group never meet")
	assert.Empty(t, s.AppendKeys(nil, sig, 0))
	assert.Less(t, s.Keys(), 120, "groups of one row share their keys")
}
