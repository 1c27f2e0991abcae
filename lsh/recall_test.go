package lsh

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRecallParamsMeetTheTargetWithTheFewestFalsePositives(t *testing.T) {
	for _, tc := range []struct {
		threshold float64
		numPerm   int
	}{{0.5, 64}, {0.7, 128}, {0.8, 128}, {0.8, 256}, {0.9, 128}, {0.95, 256}} {
		p, err := RecallParams(tc.threshold, tc.numPerm, DefaultRecallMargin, DefaultRecallTarget)
		require.NoError(t, err)
		s := min(1, tc.threshold+DefaultRecallMargin)
		assert.GreaterOrEqual(t, Detection(s, p.Bands, p.Rows), DefaultRecallTarget, "%+v", tc)
		assert.GreaterOrEqual(t, p.Bands, 2)
		assert.LessOrEqual(t, p.Bands*p.Rows, tc.numPerm)
		// Brute force: no admissible scheme has a smaller false-positive area.
		for b := 2; b <= tc.numPerm; b++ {
			for r := 1; b*r <= tc.numPerm; r++ {
				if Detection(s, b, r) >= DefaultRecallTarget {
					assert.GreaterOrEqual(t, FalsePositive(tc.threshold, b, r), p.FalsePositive, "b=%d r=%d beats %+v", b, r, p)
				}
			}
		}
		ds, err := OptimalParams(tc.threshold, tc.numPerm, 0.5, 0.5)
		if err == nil {
			assert.GreaterOrEqual(t, Detection(s, p.Bands, p.Rows), Detection(s, ds.Bands, ds.Rows),
				"recall-first must detect at least as well as datasketch's choice")
		}
	}
}

func TestRecallParamsAtTheDefaultThreshold(t *testing.T) {
	p, err := RecallParams(0.8, 128, DefaultRecallMargin, DefaultRecallTarget)
	require.NoError(t, err)
	// 1-(1-0.85^8)^15 = 0.9915 while 14 bands give 0.9884, and r=9 would need 17 bands.
	assert.Equal(t, [2]int{15, 8}, [2]int{p.Bands, p.Rows})
	assert.InDelta(t, FalseNegative(0.8, 15, 8), p.FalseNegative, 0)
}

func TestRecallParamsErrors(t *testing.T) {
	_, err := RecallParams(0.8, 1, DefaultRecallMargin, DefaultRecallTarget)
	require.Error(t, err)
	_, err = RecallParams(0.8, 128, DefaultRecallMargin, 1)
	require.Error(t, err)
	_, err = RecallParams(0.2, 2, 0, 0.999999)
	require.ErrorIs(t, err, ErrTooFewBands)
}
