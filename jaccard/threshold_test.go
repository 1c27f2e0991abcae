package jaccard

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckThreshold(t *testing.T) {
	for _, ok := range []float64{1, 0.8, math.SmallestNonzeroFloat64} {
		require.NoError(t, CheckThreshold(ok), "%v", ok)
	}
	for _, bad := range []float64{0, -0.5, 1.0000001, math.NaN(), math.Inf(1), math.Inf(-1)} {
		require.ErrorContains(t, CheckThreshold(bad), "must be in (0, 1]", "%v", bad)
	}
}
