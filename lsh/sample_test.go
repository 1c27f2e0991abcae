package lsh

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func containmentScheme(t *testing.T) ContainmentScheme {
	t.Helper()
	s, err := ContainmentParams(0.8, 128, DefaultRecallMargin, DefaultRecallTarget)
	require.NoError(t, err)
	return s
}

// randomSet returns n fresh random hashes, in no order: sampling does not need one.
func randomSet(rng *rand.Rand, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = rng.Uint64()
	}
	return out
}

// sampleMeet reports whether two sets' sample keys make them a candidate pair.
func sampleMeet(s ContainmentScheme, a, b []uint64) bool {
	kb := map[uint64][]uint64{}
	for _, k := range s.AppendSampleKeys(nil, b) {
		kb[Bucket(k)] = append(kb[Bucket(k)], k)
	}
	for _, x := range s.AppendSampleKeys(nil, a) {
		for _, y := range kb[Bucket(x)] {
			if s.Meets(x, y) {
				return true
			}
		}
	}
	return false
}

// The share of contained pairs that meet by sampling, measured per size class of the
// smaller set and size ratio (10 to 128) on generated sets, matches Detection's
// prediction within four standard errors, and the prediction is at least the class's
// ClassDetection and the scheme's Bound: the recall `neardup params --measure
// containment` prints for the sampled classes.
func TestSampleDetectionMatchesMeasuredRecallPerClass(t *testing.T) {
	const trials = 300
	s := containmentScheme(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{3, 5, 7} {
		for _, ratio := range []float64{10, 30, 50, 100, 128} {
			na := (1<<(k+1) - 1) * 15 / 16 // the top of the class: the ratio then spans at least FromDistance classes
			nb := int(ratio * float64(na))
			require.GreaterOrEqual(t, SizeClass(nb)-SizeClass(na), s.Sample.FromDistance, "k=%d ratio %v", k, ratio)
			for _, c := range []float64{0.2, 0.5, 0.8} {
				shared := int(math.Ceil(c * float64(na)))
				met := 0
				for range trials {
					a := randomSet(rng, na)
					b := append(randomSet(rng, nb-shared), a[:shared]...)
					if sampleMeet(s, a, b) {
						met++
					}
				}
				p := s.Sample.Detection(c, na)
				got := float64(met) / trials
				se := math.Sqrt(p*(1-p)/trials) + 1e-3
				t.Logf("class %d, ratio %v, containment %v: predicted %.3f, measured %.3f", k, ratio, c, p, got)
				assert.InDelta(t, p, got, 4*se, "class %d, ratio %v, containment %v", k, ratio, c)
				assert.GreaterOrEqual(t, p, s.Sample.ClassDetection(c, k))
			}
		}
	}
}

// At threshold+margin every sampled class meets the recall target, whatever its size,
// and the class figure is never below the bound 1 - exp(-Rate·c).
func TestSampleClassDetectionMeetsTheTarget(t *testing.T) {
	for _, th := range []float64{0.5, 0.8, 0.9} {
		s, err := ContainmentParams(th, 128, DefaultRecallMargin, DefaultRecallTarget)
		require.NoError(t, err)
		c := min(1, th+DefaultRecallMargin)
		assert.InDelta(t, DefaultRecallTarget, s.Sample.Bound(c), 1e-12)
		for k := range 24 {
			assert.GreaterOrEqual(t, s.Sample.ClassDetection(c, k), DefaultRecallTarget-1e-12, "t=%v class %d", th, k)
			assert.GreaterOrEqual(t, s.Sample.ClassDetection(0.5, k), s.Sample.Bound(0.5)-1e-12, "t=%v class %d", th, k)
		}
	}
}

// Whole containment is found at every ratio the sampling covers, since the smaller set's
// kept shingles are all in the larger one, unless it keeps none; beyond MaxRatio, and
// within the banding's class distances, sample keys never meet.
func TestSampleCoversEveryRatioUpToTheMax(t *testing.T) {
	s := containmentScheme(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, na := range []int{1, 3, 20, 100, 1000} {
		a := randomSet(rng, na)
		for _, ratio := range []float64{20, 64, 100, 127.9, 128, 129, 200} {
			nb := int(ratio * float64(na))
			b := append(randomSet(rng, nb-na), a...)
			d := SizeClass(nb) - SizeClass(na)
			kept := 0
			lim := s.Sample.limit(QuantizedSize(na))
			for _, x := range a {
				if fmixSample(x)>>metaBits < lim {
					kept++
				}
			}
			switch met := sampleMeet(s, a, b); {
			case d < s.Sample.FromDistance || nb >= 129*na: // 129: past the quantization of sizes
				assert.False(t, met, "na=%d ratio %v", na, ratio)
			case float64(nb) <= float64(na)*MaxContainmentRatio:
				assert.Equal(t, kept > 0, met, "na=%d ratio %v", na, ratio)
			}
		}
	}
	assert.Empty(t, s.AppendSampleKeys(nil, nil))
}

// SampleMeetsAny agrees with comparing every pair of a bucket.
func TestSampleMeetsAnyAgreesWithEveryPair(t *testing.T) {
	s := containmentScheme(t)
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		top := rng.Uint64() >> rng.IntN(64) // spread u over many scales
		top = top&^(1<<metaBits-1) | sampleSlot<<sizeBits
		keys := make([]uint64, 2+rng.IntN(6))
		for i := range keys {
			keys[i] = top | uint64(rng.IntN(16*sampleLogScale))
		}
		slices.Sort(keys)
		for i := range keys {
			want := false
			for j := range keys {
				want = want || j != i && s.Meets(keys[i], keys[j])
			}
			assert.Equal(t, want, s.SampleMeetsAny(len(keys), func(j int) uint64 { return keys[j] }, i), "%x at %d", keys, i)
		}
	}
}

// A set keeps about Rate·MaxRatio sample keys, every shingle of a smaller one.
func TestSampleKeysPerDocument(t *testing.T) {
	s := containmentScheme(t)
	rng := rand.New(rand.NewPCG(9, 10))
	assert.Len(t, s.AppendSampleKeys(nil, randomSet(rng, 300)), 300)
	want := s.Sample.Rate * MaxContainmentRatio
	for _, n := range []int{5000, 40000} {
		got := float64(len(s.AppendSampleKeys(nil, randomSet(rng, n))))
		assert.InDelta(t, want, got, 0.15*want, "n=%d", n)
	}
	for _, k := range s.AppendSampleKeys(nil, randomSet(rng, 5000)) {
		assert.True(t, IsSample(k))
		assert.Equal(t, QuantizedSize(5000), keySize(k))
		assert.Equal(t, SizeClass(5000), Class(k))
	}
}

func TestQuantizedSize(t *testing.T) {
	for n := 1; n < 1<<16; n++ {
		q := QuantizedSize(n)
		require.Equal(t, SizeClass(n), q/sampleLogScale, "n=%d", n)
		require.LessOrEqual(t, math.Exp2(float64(q)/sampleLogScale), float64(n)*(1+1e-12), "n=%d", n)
		require.Greater(t, math.Exp2(float64(q+1)/sampleLogScale), float64(n)*(1-1e-12), "n=%d", n)
	}
}
