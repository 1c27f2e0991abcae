package minhash

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAgreementIsBinomialInJaccard states the property LSH's S-curve rests on: for two
// sets of exact Jaccard J, the number of the num_perm slots on which their signatures
// agree is Binomial(num_perm, J), in every scheme and with both shingle hashes. Over many
// (pair, seed) draws the z-score (agree − n·J)/√(n·J(1−J)) must have mean ≈ 0 (no bias:
// a scheme that agreed less often than J would lose true pairs at the threshold) and
// variance ≈ 1 (no extra spread). The shingles are hashes of code-like strings with long
// shared prefixes, the kind of input where a weak permutation family would show.
func TestAgreementIsBinomialInJaccard(t *testing.T) {
	const numPerm, seeds = 128, 12
	rng := rand.New(rand.NewPCG(11, 12))
	type pair struct {
		a, b [][]byte
		j    float64
	}
	var pairs []pair
	for i := range 60 {
		shared := 40 + rng.IntN(400)
		j := 0.5 + 0.45*rng.Float64()
		// |A ∪ B| = shared / j; split the rest evenly between A only and B only.
		rest := int(math.Round(float64(shared)/j)) - shared
		onlyA := rest / 2
		line := func(k int, side string) []byte {
			return fmt.Appendf(nil, "if err := s.handle%d(ctx, req.Field%d); err != nil { return %s }", i, k, side)
		}
		var p pair
		for k := range shared {
			p.a = append(p.a, line(k, "nil"))
			p.b = append(p.b, line(k, "nil"))
		}
		for k := range onlyA {
			p.a = append(p.a, line(k, "errA"))
		}
		for k := range rest - onlyA {
			p.b = append(p.b, line(k, "errB"))
		}
		p.j = float64(shared) / float64(shared+rest)
		pairs = append(pairs, p)
	}
	for _, scheme := range []Scheme{Affine32, Affine64, Legacy} {
		for _, hf := range []HashFunc{XXHash, SHA1} {
			t.Run(fmt.Sprintf("%s/%s", scheme, hf), func(t *testing.T) {
				hash := func(strs [][]byte) []uint64 {
					hs := make([]uint64, len(strs))
					for i, s := range strs {
						hs[i] = hf.Sum64(s)
					}
					slices.Sort(hs)
					return slices.Compact(hs)
				}
				var sum, sumSq, n float64
				for seed := int64(1); seed <= seeds; seed++ {
					s, err := NewSigner(scheme, seed, numPerm)
					if err != nil {
						t.Fatal(err)
					}
					for _, p := range pairs {
						a, b := s.Sign(hash(p.a)), s.Sign(hash(p.b))
						agree := 0
						for k := range a.Values {
							if a.Values[k] == b.Values[k] {
								agree++
							}
						}
						z := (float64(agree) - numPerm*p.j) / math.Sqrt(numPerm*p.j*(1-p.j))
						sum += z
						sumSq += z * z
						n++
					}
				}
				mean := sum / n
				variance := sumSq/n - mean*mean
				// n = 720 draws: the standard error of the mean is 0.037, of the variance
				// about 0.053; the bounds are 4 standard errors.
				if math.Abs(mean) > 0.15 || math.Abs(variance-1) > 0.22 {
					t.Errorf("agreement z-scores over %v draws: mean %.3f, variance %.3f; want 0 and 1 (Binomial(%d, J))",
						n, mean, variance, numPerm)
				}
			})
		}
	}
}
