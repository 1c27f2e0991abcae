package lsh

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/neardup/neardup/minhash"
)

// Containment banding. A set A is contained in B at threshold t when |A∩B|/|A| ≥ t and
// |A| ≤ |B|. MinHash sees only the Jaccard similarity J = |A∩B|/|A∪B|, which for
// containment c and size ratio ρ = |B|/|A| ≥ 1 is J = c/(ρ+1-c): the larger B is, the
// lower J falls at the same containment. So, as in LSH Ensemble (Zhu et al., VLDB
// 2016), documents are partitioned by set size, and each pair of partitions gets its
// own banding, chosen for the lowest J a contained pair between them can have.
//
// The partitions are size classes by powers of two: class k holds the sets of 2^k to
// 2^(k+1)-1 shingles. A pair whose smaller set is in class i and larger in class i+d
// has ρ < 2^(d+1), so J ≥ JaccardOfContainment(t, 2^(d+1)); the group of distance d
// bands with the recall-first scheme (RecallParams) for that floor. Every document
// emits, for each distance d, the keys of group (i, i+d) as the smaller set and of
// group (i-d, i) as the larger one, each key tagged with its group, so the two
// documents of a pair meet in exactly the group of their classes. Unlike LSH Ensemble,
// which tunes (b, r) per query size at query time against an index that stores every
// r, a batch join has no query side: fixing the scheme per class distance keeps the
// keys of both ends identical, at the cost of tuning for the worst ratio of the group.
//
// Distances grow while a scheme of numPerm permutations still meets the recall target
// at the group's floor, up to MaxContainmentDistance: pairs further apart in size
// than the last group covers (ρ ≥ 2^D, D the last distance) share no bucket.

// MaxContainmentDistance bounds the size-class distances banded: a pair whose larger
// set is 2^MaxContainmentDistance times the smaller or more is outside the scheme.
const MaxContainmentDistance = 6

// ContainmentGroup is the banding of the pairs whose size classes are Distance apart.
type ContainmentGroup struct {
	Distance int
	// MaxRatio bounds |B|/|A| for the pairs of the group: 2^(Distance+1).
	MaxRatio float64
	// Floor is the Jaccard of a pair at the containment threshold and MaxRatio: the
	// lowest Jaccard of a contained pair in the group, which Params is chosen for.
	Floor float64
	Params
}

// ContainmentScheme is the banding of every group, by distance 0, 1, ….
type ContainmentScheme struct {
	Threshold float64
	Groups    []ContainmentGroup
}

// JaccardOfContainment is the Jaccard similarity of two sets when the smaller's
// containment in the larger is c and the larger is ratio times the smaller.
func JaccardOfContainment(c, ratio float64) float64 { return c / (ratio + 1 - c) }

// SizeClass is the size class of a set of n ≥ 1 shingles: ⌊log₂ n⌋.
func SizeClass(n int) int { return bits.Len(uint(n)) - 1 }

// ContainmentParams chooses the banding of every group for a containment threshold:
// the group of distance d uses RecallParams at the Jaccard floor of its worst ratio,
// so a pair at containment threshold+margin shares a bucket with probability at least
// target whatever its sizes within the covered ratios.
func ContainmentParams(threshold float64, numPerm int, margin, target float64) (ContainmentScheme, error) {
	s := ContainmentScheme{Threshold: threshold}
	for d := 0; d <= MaxContainmentDistance; d++ {
		ratio := math.Ldexp(1, d+1)
		lo := JaccardOfContainment(threshold, ratio)
		hi := JaccardOfContainment(min(1, threshold+margin), ratio)
		p, err := RecallParams(lo, numPerm, hi-lo, target)
		if err != nil {
			if d == 0 {
				return s, fmt.Errorf("containment threshold %v: %w", threshold, err)
			}
			break
		}
		s.Groups = append(s.Groups, ContainmentGroup{Distance: d, MaxRatio: ratio, Floor: lo, Params: p})
	}
	return s, nil
}

// Keys returns the number of band keys a document emits: those of its groups as the
// smaller set and as the larger one (at most; a class near 0 has fewer below it).
func (s ContainmentScheme) Keys() int {
	n := 0
	for _, g := range s.Groups {
		n += g.Bands
		if g.Distance > 0 {
			n += g.Bands
		}
	}
	return n
}

// Detection is the probability that a pair at containment c whose larger set is ratio
// times the smaller shares a bucket, when its size classes are d apart.
func (s ContainmentScheme) Detection(c, ratio float64, d int) float64 {
	if d < 0 || d >= len(s.Groups) {
		return 0
	}
	g := s.Groups[d]
	return Detection(JaccardOfContainment(c, ratio), g.Bands, g.Rows)
}

// AppendKeys appends the band keys of a set of size shingles with signature sig to dst.
// An empty set has none.
func (s ContainmentScheme) AppendKeys(dst []uint64, sig []uint64, size int) []uint64 {
	if size < 1 {
		return dst
	}
	c := SizeClass(size)
	for _, g := range s.Groups {
		dst = appendGroupKeys(dst, sig, g, c, c+g.Distance)
		if g.Distance > 0 && c-g.Distance >= 0 {
			dst = appendGroupKeys(dst, sig, g, c-g.Distance, c)
		}
	}
	return dst
}

// appendGroupKeys appends the keys of group (small, large): BandKey mixed with the
// group's classes, so that groups never share a bucket.
func appendGroupKeys(dst []uint64, sig []uint64, g ContainmentGroup, small, large int) []uint64 {
	tag := minhash.Fmix64(uint64(small)<<32 | uint64(large) | 1<<63)
	for b := range g.Bands {
		dst = append(dst, minhash.Fmix64(BandKey(sig, b, g.Rows)^tag))
	}
	return dst
}
