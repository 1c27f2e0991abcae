package minhash

import (
	"fmt"
)

// MinHash is a signature: datasketch's MinHash.hashvalues with the seed and scheme that
// made it. Values are < 2^32 for affine32 and legacy.
type MinHash struct {
	Scheme Scheme
	Seed   int64
	Values []uint64
}

// Clear resets every slot to the scheme's empty value.
func (m *MinHash) Clear() {
	e := m.Scheme.EmptyValue()
	for i := range m.Values {
		m.Values[i] = e
	}
}

// Copy returns an independent copy.
func (m *MinHash) Copy() *MinHash {
	return &MinHash{Scheme: m.Scheme, Seed: m.Seed, Values: append([]uint64(nil), m.Values...)}
}

// IsEmpty reports whether no shingle has been signed (every slot is the empty value).
func (m *MinHash) IsEmpty() bool {
	e := m.Scheme.EmptyValue()
	for _, v := range m.Values {
		if v != e {
			return false
		}
	}
	return true
}

// compatible errors when two signatures cannot be compared, as datasketch does.
func (m *MinHash) compatible(o *MinHash) error {
	switch {
	case m.Scheme != o.Scheme:
		return fmt.Errorf("minhash: signatures have different schemes: %s vs %s", m.Scheme, o.Scheme)
	case m.Seed != o.Seed:
		return fmt.Errorf("minhash: signatures have different seeds: %d vs %d", m.Seed, o.Seed)
	case len(m.Values) != len(o.Values):
		return fmt.Errorf("minhash: signatures have different num_perm: %d vs %d", len(m.Values), len(o.Values))
	}
	return nil
}

// Jaccard estimates the Jaccard similarity of the two signed sets: the share of equal
// slots (datasketch's MinHash.jaccard).
func (m *MinHash) Jaccard(o *MinHash) (float64, error) {
	if err := m.compatible(o); err != nil {
		return 0, fmt.Errorf("jaccard: %w", err)
	}
	return Estimate(m.Values, o.Values)
}

// Estimate is the Jaccard estimate of two raw signatures of the same family (for example
// from SignWith): the share of equal slots. Signatures of different lengths are an error.
func Estimate(a, b []uint64) (float64, error) {
	if len(a) != len(b) {
		return 0, fmt.Errorf("minhash: signatures have different num_perm: %d vs %d", len(a), len(b))
	}
	if len(a) == 0 {
		return 0, fmt.Errorf("minhash: cannot estimate from empty signatures")
	}
	b = b[:len(a)]
	eq := 0
	for i, v := range a {
		if v == b[i] {
			eq++
		}
	}
	return float64(eq) / float64(len(a)), nil
}

// Merge makes m the signature of the union of both sets (slot-wise minimum).
func (m *MinHash) Merge(o *MinHash) error {
	if err := m.compatible(o); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	o2 := o.Values[:len(m.Values)]
	for i, v := range o2 {
		m.Values[i] = min(m.Values[i], v)
	}
	return nil
}

// Count estimates the cardinality of the signed set as datasketch's MinHash.count():
// k / Σ(v / MAX) - 1, with MAX the scheme's empty value and the sum taken in numpy's
// pairwise order, so the float is bit-identical.
func (m *MinHash) Count() float64 {
	k := len(m.Values)
	if k == 0 {
		return 0
	}
	max := float64(m.Scheme.EmptyValue())
	// The quotients are materialised first, as numpy does (hashvalues / MAX), then summed.
	var small [256]float64
	q := small[:0]
	if k > len(small) {
		q = make([]float64, 0, k)
	}
	for _, v := range m.Values {
		q = append(q, float64(v)/max)
	}
	return float64(k)/pairwiseSum(q) - 1
}

// pairwiseSum is numpy's pairwise_sum for float64 (umath loops_utils): blocks of up to
// 128 summed with eight accumulators, larger arrays split near the middle at a multiple
// of eight. numpy's add.reduce starts from the identity 0.0, which changes nothing.
func pairwiseSum(a []float64) float64 {
	const blockSize = 128
	n := len(a)
	switch {
	case n < 8:
		res := 0.0
		for _, v := range a {
			res += v
		}
		return res
	case n <= blockSize:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += a[i+j]
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
	}
}
