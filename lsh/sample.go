package lsh

import (
	"math"
	"sort"

	"github.com/neardup/neardup/minhash"
)

// Containment sampling: the pairs further apart in size than the banding's groups.
// At a size ratio of 16 or more the Jaccard of a contained pair is under 0.05, which
// no banding of a few hundred permutations separates from chance; but containment
// itself has an exact, cheap witness. Hash every shingle once more to u(x), uniform
// in [0, 1). A set A keeps the shingles with u(x) < τ(A) = min(1, Rate/|A|), and two
// sets A ⊆~ B meet when they share one of A's: the |A∩B| = c|A| shared shingles are
// each kept with probability τ(A), independently of B's size, so
//
//	P(meet) = 1 - (1-τ(A))^(c|A|) ≥ 1 - exp(-Rate·c),
//
// the same at a ratio of 10 as at 100. B, not knowing A, keeps the shingles below
// the τ of the smallest set it is meant to meet, τ(|B|/MaxRatio): about Rate·MaxRatio
// keys, the price of covering every ratio up to MaxRatio. Sizes enter as their
// quantized logarithm q = ⌊256·log₂ n⌋ (sampleLogScale), carried in the key, so τ is
// taken from q (2^(-q/256) ≥ 1/n: never below the exact Rate/n) and the ratio bound
// from the q difference, exactly in both keys.

// MaxContainmentRatio is the largest size ratio |B|/|A| sampling covers: every pair
// whose larger set is at most this many times the smaller one is in the scheme.
const MaxContainmentRatio = 128

// sampleLogScale is the steps per doubling of a sample key's quantized size.
const sampleLogScale = 256

// sampleSeed makes u(x) independent of the shingle hash and the MinHash permutations.
const sampleSeed = 0x6a09e667f3bcc909

// sampleSlot is the slot (rows field) of every sample key; banding uses the others.
const sampleSlot = 1<<slotBits - 1

// sizeBits hold a sample key's quantized size, where a band key has band and class.
const sizeBits = classBits + bandBits

// ContainmentSample is the sampling of the pairs whose size classes are FromDistance
// or more apart, up to a size ratio of MaxRatio.
type ContainmentSample struct {
	FromDistance int
	MaxRatio     float64
	// Rate is the expected number of a set's shingles that its containers must share
	// for it to meet them: -ln(1-target)/(threshold+margin).
	Rate float64
}

// sampleFor returns the sampling that meets target at containment c, from class
// distance from on.
func sampleFor(c, target float64, from int) ContainmentSample {
	return ContainmentSample{FromDistance: from, MaxRatio: MaxContainmentRatio, Rate: -math.Log(1-target) / c}
}

// QuantizedSize is a sample key's size of a set of n ≥ 1 shingles: ⌊256·log₂ n⌋, its
// top bits the size class.
func QuantizedSize(n int) int {
	c := min(SizeClass(n), Classes-1)
	f := int(sampleLogScale * math.Log2(float64(n)/math.Ldexp(1, c)))
	return c*sampleLogScale + min(max(f, 0), sampleLogScale-1)
}

// spread is the largest quantized size difference of a pair within MaxRatio.
func (p ContainmentSample) spread() int {
	return int(math.Ceil(sampleLogScale*math.Log2(p.MaxRatio))) + 1
}

// tau is τ for quantized size q: min(1, Rate·2^(-q/256)).
func (p ContainmentSample) tau(q int) float64 {
	return min(1, p.Rate*math.Exp2(-float64(q)/sampleLogScale))
}

// limit is τ(q) in the units of a key's hash bits: a key below it is kept.
func (p ContainmentSample) limit(q int) uint64 {
	return uint64(math.Ldexp(p.tau(q), 64-metaBits))
}

// Detection is the probability that a set of n shingles, c of it shared with a set
// at least FromDistance classes and at most MaxRatio times larger, meets it.
func (p ContainmentSample) Detection(c float64, n int) float64 {
	if p.Rate == 0 {
		return 0
	}
	shared := math.Ceil(c*float64(n) - 1e-9)
	return 1 - math.Pow(1-p.tau(QuantizedSize(n)), shared)
}

// ClassDetection is the least Detection over the sets of size class k: the predicted
// recall of its pairs at containment c.
func (p ContainmentSample) ClassDetection(c float64, k int) float64 {
	lo, hi := 1<<k, 1<<(k+1)
	least := 1.0
	// τ·n is least just past a step of q; the steps of a class are its 256 quantiles.
	for i := range sampleLogScale + 1 {
		n := min(hi-1, max(lo, int(math.Ceil(math.Ldexp(math.Exp2(float64(i)/sampleLogScale), k)))))
		least = min(least, p.Detection(c, n))
		if n > lo {
			least = min(least, p.Detection(c, n-1))
		}
	}
	return least
}

// Bound is the least Detection over every size at containment c: 1 - exp(-Rate·c).
func (p ContainmentSample) Bound(c float64) float64 {
	if p.Rate == 0 {
		return 0
	}
	return 1 - math.Exp(-p.Rate*c)
}

// AppendSampleKeys appends the sample keys of a set (ascending shingle hashes) to dst:
// its shingles under τ of the smallest set within MaxRatio of it, each with the set's
// quantized size. They are Rate·MaxRatio keys or so, and every shingle of a set of
// fewer.
func (s ContainmentScheme) AppendSampleKeys(dst []uint64, set []uint64) []uint64 {
	p := s.Sample
	if len(set) == 0 || p.Rate == 0 {
		return dst
	}
	q := QuantizedSize(len(set))
	lim := p.limit(q - p.spread())
	for _, x := range set {
		v := fmixSample(x)
		if v>>metaBits < lim {
			dst = append(dst, v&^(1<<metaBits-1)|sampleSlot<<sizeBits|uint64(q))
		}
	}
	return dst
}

// fmixSample is u(x) in 64 bits.
func fmixSample(x uint64) uint64 { return minhash.Fmix64(x ^ sampleSeed) }

// IsSample reports whether a containment key is a sample key.
func IsSample(key uint64) bool { return key>>sizeBits&(1<<slotBits-1) == sampleSlot }

// keySize is a sample key's quantized size.
func keySize(key uint64) int { return int(key & (1<<sizeBits - 1)) }

// sampleMeets reports whether two sample keys of one bucket are a candidate pair: their
// classes are FromDistance or more apart, their sizes within MaxRatio, and the shingle
// is kept by the smaller set's τ.
func (p ContainmentSample) sampleMeets(a, b uint64) bool {
	qa, qb := keySize(a), keySize(b)
	if qa > qb {
		qa, qb = qb, qa
	}
	return qb/sampleLogScale-qa/sampleLogScale >= p.FromDistance && qb-qa <= p.spread() && a>>metaBits < p.limit(qa)
}

// SampleMeetsAny reports whether the i-th of a sample bucket's n keys, ascending
// (key(j) is the j-th), meets another. Its partners above it start at the class
// FromDistance up, and the nearest meets if any does (the shingle is kept by its own
// τ); below, at MaxRatio down, and the smallest meets if any does (its τ is the
// largest).
func (s ContainmentScheme) SampleMeetsAny(n int, key func(int) uint64, i int) bool {
	p := s.Sample
	q := keySize(key(i))
	first := func(from int) int { return sort.Search(n, func(j int) bool { return keySize(key(j)) >= from }) }
	if j := first((q/sampleLogScale + p.FromDistance) * sampleLogScale); j < n && p.sampleMeets(key(i), key(j)) {
		return true
	}
	j := first(q - p.spread())
	return j < n && j != i && p.sampleMeets(key(i), key(j))
}
