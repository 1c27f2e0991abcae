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

// Two sets d classes apart with equal signatures share exactly the bands of group d;
// a set shares none with itself across groups, and an empty set has no keys.
func TestContainmentKeysMeetOnlyInTheirGroup(t *testing.T) {
	s, err := ContainmentParams(0.8, 128, DefaultRecallMargin, DefaultRecallTarget)
	require.NoError(t, err)
	sig := make([]uint64, 128)
	for i := range sig {
		sig[i] = uint64(i) * 7919
	}
	keys := func(size int) map[uint64]bool {
		m := map[uint64]bool{}
		ks := s.AppendKeys(nil, sig, size)
		for _, k := range ks {
			m[k] = true
		}
		require.Len(t, m, len(ks), "keys of one document are distinct")
		return m
	}
	small := keys(100) // class 6
	for d, g := range s.Groups {
		large := keys(100 << d) // class 6+d
		shared := 0
		for k := range small {
			if large[k] {
				shared++
			}
		}
		if d == 0 {
			assert.Equal(t, len(small), shared)
			continue
		}
		assert.Equal(t, g.Bands, shared, "distance %d", d)
	}
	far := keys(100 << len(s.Groups))
	for k := range small {
		assert.False(t, far[k], "classes beyond the last group share no key")
	}
	assert.Empty(t, s.AppendKeys(nil, sig, 0))
	assert.LessOrEqual(t, len(small), s.Keys())
}
