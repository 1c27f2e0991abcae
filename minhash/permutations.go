package minhash

import (
	"fmt"
	"math"
)

// mersenne61 is datasketch's _mersenne_prime, 2^61-1.
const mersenne61 = 1<<61 - 1

// Permutations are the a and b parameters of a scheme's num_perm hash permutations,
// exactly as datasketch's MinHash.permutations (a = permutations[0], b = permutations[1]).
type Permutations struct {
	Scheme Scheme
	Seed   int64
	A, B   []uint64
}

// NewPermutations draws the permutations datasketch 2.0 draws for (scheme, seed, numPerm)
// from numpy's legacy RandomState(seed).
//
// Affine schemes of width w draw all a first, a = randint(0, 2^(w-1))*2+1 (odd, so the map
// is a bijection mod 2^w), then all b = randint(0, 2^w); the b of 16 permutations are
// therefore not a prefix of the b of 128. Legacy draws a0, b0, a1, b1, ... with
// a = randint(1, 2^61-1), b = randint(0, 2^61-1).
func NewPermutations(scheme Scheme, seed int64, numPerm int) (*Permutations, error) {
	if err := scheme.valid(); err != nil {
		return nil, err
	}
	if numPerm < 1 {
		return nil, fmt.Errorf("minhash: num_perm must be at least 1, got %d", numPerm)
	}
	if numPerm > math.MaxInt32 {
		return nil, fmt.Errorf("minhash: num_perm %d does not fit datasketch's int32 field", numPerm)
	}
	if seed < 0 || seed > math.MaxUint32 {
		// numpy.random.RandomState rejects these seeds the same way.
		return nil, fmt.Errorf("minhash: seed must be between 0 and 2**32 - 1, got %d", seed)
	}
	var r randomState
	r.seed(uint32(seed))
	p := &Permutations{Scheme: scheme, Seed: seed, A: make([]uint64, numPerm), B: make([]uint64, numPerm)}
	switch scheme {
	case Affine32:
		for i := range p.A {
			p.A[i] = r.bounded(0, 1<<31-1)*2 + 1
		}
		for i := range p.B {
			p.B[i] = r.bounded(0, math.MaxUint32)
		}
	case Affine64:
		for i := range p.A {
			p.A[i] = r.bounded(0, 1<<63-1)*2 + 1
		}
		for i := range p.B {
			p.B[i] = r.bounded(0, math.MaxUint64)
		}
	case Legacy:
		for i := range p.A {
			p.A[i] = r.bounded(1, mersenne61-1-1)
			p.B[i] = r.bounded(0, mersenne61-1)
		}
	}
	return p, nil
}

// randomState is numpy's legacy RandomState: MT19937 seeded with init_genrand and
// numpy's masked-rejection bounded integers (randint's legacy algorithm).
type randomState struct {
	mt  [624]uint32
	pos int
}

// seed is MT19937's init_genrand, which RandomState(int) uses (mt19937_seed in numpy).
func (r *randomState) seed(s uint32) {
	r.mt[0] = s
	for i := 1; i < len(r.mt); i++ {
		prev := r.mt[i-1]
		r.mt[i] = 1812433253*(prev^(prev>>30)) + uint32(i)
	}
	r.pos = len(r.mt)
}

func (r *randomState) generate() {
	const (
		n, m    = 624, 397
		matrixA = 0x9908b0df
		upper   = 0x80000000
		lower   = 0x7fffffff
	)
	mt := &r.mt
	for i := 0; i < n; i++ {
		y := mt[i]&upper | mt[(i+1)%n]&lower
		mt[i] = mt[(i+m)%n] ^ y>>1 ^ (-(y & 1) & matrixA)
	}
	r.pos = 0
}

func (r *randomState) next32() uint32 {
	if r.pos >= len(r.mt) {
		r.generate()
	}
	y := r.mt[r.pos]
	r.pos++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// next64 is numpy's mt19937_next64: the first 32-bit draw is the high half.
func (r *randomState) next64() uint64 {
	hi := uint64(r.next32())
	return hi<<32 | uint64(r.next32())
}

// bounded returns off + a uniform integer in [0, rng], as numpy's
// random_bounded_uint64_fill with use_masked (the legacy randint path): ranges that fit
// 32 bits draw 32-bit words, others 64-bit words; the word is masked to the smallest
// all-ones mask covering rng and rejected while above rng.
func (r *randomState) bounded(off, rng uint64) uint64 {
	switch {
	case rng == 0:
		return off
	case rng == math.MaxUint32:
		return off + uint64(r.next32())
	case rng < math.MaxUint32:
		mask := genMask(rng)
		for {
			if v := uint64(r.next32()) & mask; v <= rng {
				return off + v
			}
		}
	case rng == math.MaxUint64:
		return off + r.next64()
	default:
		mask := genMask(rng)
		for {
			if v := r.next64() & mask; v <= rng {
				return off + v
			}
		}
	}
}

// genMask is the smallest 2^k-1 that is >= max.
func genMask(max uint64) uint64 {
	m := max
	m |= m >> 1
	m |= m >> 2
	m |= m >> 4
	m |= m >> 8
	m |= m >> 16
	m |= m >> 32
	return m
}
