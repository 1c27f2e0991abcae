package lsh

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

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
// emits each band once, with its size class beside it in the key, and two documents
// sharing a bucket become a pair only when the band belongs to the group of their
// class distance (Meets): the groups of one-row bands, which differ only in how many
// bands they take, share the document's minhash values instead of repeating them per
// group and side. Unlike LSH Ensemble,
// which tunes (b, r) per query size at query time against an index that stores every
// r, a batch join has no query side: fixing the scheme per class distance keeps the
// keys of both ends identical, at the cost of tuning for the worst ratio of the group.
//
// Distances grow while a scheme of numPerm permutations still meets the recall target
// at the group's floor, up to MaxContainmentDistance; the pairs further apart in size
// are met by sampling (ContainmentSample), up to a ratio of MaxContainmentRatio.

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
	// Sample covers the pairs further apart than the last group, up to its MaxRatio.
	Sample ContainmentSample
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
		if !s.validKeys() {
			s.Groups = s.Groups[:len(s.Groups)-1]
			break
		}
	}
	s.Sample = sampleFor(min(1, threshold+margin), target, len(s.Groups))
	return s, nil
}

// Keys returns the number of band keys a document emits: for each number of rows used
// by a group, the most bands a group of that many rows has.
func (s ContainmentScheme) Keys() int {
	n := 0
	for _, r := range s.rowSlots() {
		n += s.bandsOf(r)
	}
	return n
}

// rowSlots returns the distinct numbers of rows of the groups, in group order; a
// key's slot is its index here.
func (s ContainmentScheme) rowSlots() []int {
	var rows []int
	for _, g := range s.Groups {
		if !slices.Contains(rows, g.Rows) {
			rows = append(rows, g.Rows)
		}
	}
	return rows
}

// bandsOf returns the most bands of the groups of r rows.
func (s ContainmentScheme) bandsOf(r int) int {
	b := 0
	for _, g := range s.Groups {
		if g.Rows == r {
			b = max(b, g.Bands)
		}
	}
	return b
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

// A containment band key is a bucket and where in the scheme it was drawn: its low
// classBits bits are the document's size class, the next bandBits its band, the next
// slotBits its number of rows (as a slot of rowSlots), and the rest the band's hash.
// Two documents share a bucket when their keys agree above the class (Bucket); they
// are a candidate pair when, in addition, their classes are d apart for a group d of
// that many rows and more bands than the band's number (Meets). Each band is emitted
// once for every group that uses it, so groups of the same rows share their keys: a
// document emits Keys() of them, not one set per group and side.
const (
	classBits = 6
	bandBits  = 8
	slotBits  = 3
	metaBits  = classBits + bandBits + slotBits
)

// validKeys reports whether every group fits the key layout.
func (s ContainmentScheme) validKeys() bool {
	return len(s.rowSlots()) < sampleSlot && slices.IndexFunc(s.Groups, func(g ContainmentGroup) bool { return g.Bands > 1<<bandBits }) < 0
}

// Bucket returns the bucket of a containment key: a band key without its class, a
// sample key without its size. Keys of one bucket are adjacent in key order.
func Bucket(key uint64) uint64 {
	if IsSample(key) {
		return key &^ (1<<sizeBits - 1)
	}
	return key &^ (1<<classBits - 1)
}

// Meets reports whether two documents whose keys share a bucket are a candidate pair:
// their size classes are as far apart as a group of the key's rows that holds the
// key's band, or, for sample keys, as ContainmentSample admits.
func (s ContainmentScheme) Meets(a, b uint64) bool {
	if IsSample(a) {
		return s.Sample.sampleMeets(a, b)
	}
	d := int(a&(1<<classBits-1)) - int(b&(1<<classBits-1))
	d = max(d, -d)
	if d >= len(s.Groups) {
		return false
	}
	g := s.Groups[d]
	meta := a >> classBits
	band, slot := int(meta&(1<<bandBits-1)), int(meta>>bandBits&(1<<slotBits-1))
	return band < g.Bands && s.slotOf(g.Rows) == slot
}

// WithClass returns key as the key of the same band for a document of size class c.
func WithClass(key uint64, c int) uint64 { return key&^(1<<classBits-1) | uint64(c) }

// Class returns the size class a key was drawn for.
func Class(key uint64) int {
	if IsSample(key) {
		return keySize(key) / sampleLogScale
	}
	return int(key & (1<<classBits - 1))
}

// Classes is the number of size classes a key tells apart.
const Classes = 1 << classBits

// slotOf returns the slot of a number of rows: its index among the groups' distinct
// numbers of rows (rowSlots), without allocating.
func (s ContainmentScheme) slotOf(rows int) int {
	slot := 0
	for i, g := range s.Groups {
		if g.Rows == rows {
			return slot
		}
		if !slices.ContainsFunc(s.Groups[:i], func(h ContainmentGroup) bool { return h.Rows == g.Rows }) {
			slot++
		}
	}
	return -1
}

// AppendKeys appends the band keys of a set of size shingles with signature sig to dst.
// An empty set has none.
func (s ContainmentScheme) AppendKeys(dst []uint64, sig []uint64, size int) []uint64 {
	if size < 1 {
		return dst
	}
	c := uint64(min(SizeClass(size), Classes-1))
	for slot, r := range s.rowSlots() {
		for b := range s.bandsOf(r) {
			meta := uint64(slot)<<bandBits | uint64(b)
			k := minhash.Fmix64(BandKey(sig, b, r) ^ uint64(r)<<56)
			dst = append(dst, k&^(1<<metaBits-1)|meta<<classBits|c)
		}
	}
	return dst
}
