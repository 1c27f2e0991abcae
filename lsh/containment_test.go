package lsh

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/neardup/neardup/minhash"

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

// The share of contained pairs that share a bucket, measured per class distance on
// generated sets signed by the real MinHash, matches Detection's prediction within
// four standard errors: the curve `neardup params --measure containment` prints is the
// recall a size class gets.
func TestContainmentDetectionMatchesMeasuredRecallPerClass(t *testing.T) {
	const numPerm, trials, small = 128, 400, 64 // small: the lowest set of class 6
	s, err := ContainmentParams(0.8, numPerm, DefaultRecallMargin, DefaultRecallTarget)
	require.NoError(t, err)
	signer, err := minhash.NewSigner(minhash.DefaultScheme, 1, numPerm)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	fresh := func(n int) []uint64 {
		out := make([]uint64, n)
		for i := range out {
			out[i] = rng.Uint64()
		}
		return out
	}
	for d, g := range s.Groups {
		// The worst ratio of the group, kept inside its classes: the curve's lowest point.
		ratio := g.MaxRatio * 0.9
		for _, c := range []float64{0.4, 0.6, 0.8} { // the slope of the curve, and the threshold
			na := small
			nb := int(ratio * float64(na))
			require.Equal(t, d, SizeClass(nb)-SizeClass(na))
			shared := int(math.Ceil(c * float64(na)))
			met := 0
			for range trials {
				a := fresh(na)
				b := append(append([]uint64(nil), a[:shared]...), fresh(nb-shared)...)
				ka := s.AppendKeys(nil, signer.Sign(a).Values, len(a))
				kb := s.AppendKeys(nil, signer.Sign(b).Values, len(b))
				if meetsAny(s, ka, kb) {
					met++
				}
			}
			j := float64(shared) / float64(na+nb-shared)
			p := Detection(j, g.Bands, g.Rows)
			got := float64(met) / trials
			se := math.Sqrt(p*(1-p)/trials) + 1e-3
			t.Logf("distance %d, containment %v: predicted %.3f, measured %.3f", d, c, p, got)
			assert.InDelta(t, p, got, 4*se, "distance %d, containment %v, ratio %.1f: predicted %.3f, measured %.3f", d, c, ratio, p, got)
		}
	}
}

// meetsAny reports whether two documents' keys make them a candidate pair.
func meetsAny(s ContainmentScheme, a, b []uint64) bool {
	for _, x := range a {
		for _, y := range b {
			if Bucket(x) == Bucket(y) && s.Meets(x, y) {
				return true
			}
		}
	}
	return false
}
