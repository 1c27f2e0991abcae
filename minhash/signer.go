package minhash

import (
	"fmt"
)

// Family is a family of num_perm hash permutations. Permute maps a 64-bit shingle hash
// through permutation k (0 <= k < NumPerm()); Empty is the value of an unfilled slot,
// larger than or equal to every permuted value. A Signer is a Family; tests and users
// can sign with hand-given permutations through SignWith.
type Family interface {
	NumPerm() int
	Permute(k int, h uint64) uint64
	Empty() uint64
}

// SignWith is the reference MinHash: for each permutation of f, the minimum permuted
// hash over hashes (f.Empty() when hashes is empty).
func SignWith(f Family, hashes []uint64) []uint64 {
	sig := make([]uint64, f.NumPerm())
	for k := range sig {
		m := f.Empty()
		for _, h := range hashes {
			m = min(m, f.Permute(k, h))
		}
		sig[k] = m
	}
	return sig
}

// Signer signs shingle hashes with the permutations of one (scheme, seed, num_perm).
// It is immutable after NewSigner and cheap to share read-only across goroutines.
type Signer struct {
	perm     *Permutations
	a32, b32 []uint32 // affine32 parameters as 32-bit lanes for the hot loop
}

// NewSigner draws the permutations of (scheme, seed, numPerm); see NewPermutations.
func NewSigner(scheme Scheme, seed int64, numPerm int) (*Signer, error) {
	p, err := NewPermutations(scheme, seed, numPerm)
	if err != nil {
		return nil, err
	}
	return NewSignerFrom(p)
}

// NewSignerFrom signs with given permutations (e.g. read back from a saved run). The
// parameters must fit the scheme: affine a odd, 32-bit values for affine32.
func NewSignerFrom(p *Permutations) (*Signer, error) {
	if err := p.Scheme.valid(); err != nil {
		return nil, err
	}
	if len(p.A) < 1 || len(p.A) != len(p.B) {
		return nil, fmt.Errorf("minhash: permutations need as many a as b, at least 1: got %d a and %d b", len(p.A), len(p.B))
	}
	s := &Signer{perm: &Permutations{Scheme: p.Scheme, Seed: p.Seed,
		A: append([]uint64(nil), p.A...), B: append([]uint64(nil), p.B...)}}
	if p.Scheme == Affine32 {
		s.a32 = make([]uint32, len(p.A))
		s.b32 = make([]uint32, len(p.B))
		for k := range p.A {
			if p.A[k] > 0xFFFFFFFF || p.B[k] > 0xFFFFFFFF {
				return nil, fmt.Errorf("minhash: affine32 permutation %d has a 64-bit parameter (a=%d, b=%d)", k, p.A[k], p.B[k])
			}
			s.a32[k], s.b32[k] = uint32(p.A[k]), uint32(p.B[k])
		}
	}
	return s, nil
}

// Scheme is the signer's permutation family.
func (s *Signer) Scheme() Scheme { return s.perm.Scheme }

// Seed is the seed the permutations were drawn with.
func (s *Signer) Seed() int64 { return s.perm.Seed }

// NumPerm is the number of permutations (signature length).
func (s *Signer) NumPerm() int { return len(s.perm.A) }

// Empty is the value of an unfilled slot (Scheme.EmptyValue).
func (s *Signer) Empty() uint64 { return s.perm.Scheme.EmptyValue() }

// Permutations returns a copy of the signer's permutation parameters.
func (s *Signer) Permutations() *Permutations {
	return &Permutations{Scheme: s.perm.Scheme, Seed: s.perm.Seed,
		A: append([]uint64(nil), s.perm.A...), B: append([]uint64(nil), s.perm.B...)}
}

// Permute maps one 64-bit shingle hash through permutation k, as datasketch does:
// affine32 fmix32(low 32 bits)*a+b mod 2^32, affine64 fmix64(h)*a+b mod 2^64, legacy
// ((a*low32 + b) mod 2^64 mod (2^61-1)) & (2^32-1). It is the slow, obvious path.
func (s *Signer) Permute(k int, h uint64) uint64 {
	a, b := s.perm.A[k], s.perm.B[k]
	switch s.perm.Scheme {
	case Affine32:
		return uint64(uint32(a)*Fmix32(uint32(h)) + uint32(b))
	case Affine64:
		return a*Fmix64(h) + b
	default:
		return (a*uint64(uint32(h)) + b) % mersenne61 & 0xFFFFFFFF
	}
}

// New returns an empty signature of this signer's scheme, seed and length.
func (s *Signer) New() *MinHash {
	m := &MinHash{Scheme: s.perm.Scheme, Seed: s.perm.Seed, Values: make([]uint64, s.NumPerm())}
	m.Clear()
	return m
}

// Sign returns the signature of a document's shingle hashes.
func (s *Signer) Sign(hashes []uint64) *MinHash {
	m := &MinHash{Scheme: s.perm.Scheme, Seed: s.perm.Seed, Values: make([]uint64, s.NumPerm())}
	s.SignInto(m.Values, hashes)
	return m
}

// SignInto writes the signature of hashes into dst (len NumPerm) without allocating.
func (s *Signer) SignInto(dst []uint64, hashes []uint64) {
	s.checkLen(dst)
	e := s.Empty()
	for i := range dst {
		dst[i] = e
	}
	s.Accumulate(dst, hashes)
}

// Accumulate folds more shingle hashes into the signature dst (len NumPerm): each slot
// becomes the minimum of itself and the permuted hashes. It does not allocate.
func (s *Signer) Accumulate(dst []uint64, hashes []uint64) {
	s.checkLen(dst)
	if len(hashes) == 0 {
		return
	}
	switch s.perm.Scheme {
	case Affine32:
		accumulate32(dst, s.a32, s.b32, hashes)
	case Affine64:
		accumulate64(dst, s.perm.A, s.perm.B, hashes)
	default:
		accumulateLegacy(dst, s.perm.A, s.perm.B, hashes)
	}
}

// Update hashes each of data with hf and folds it into m, like datasketch's
// MinHash.update / update_batch (identical signatures with hf == SHA1).
func (s *Signer) Update(m *MinHash, hf HashFunc, data ...[]byte) error {
	if err := s.compatible(m); err != nil {
		return err
	}
	var buf [blockSize]uint64
	for len(data) > 0 {
		n := min(len(data), len(buf))
		for i, d := range data[:n] {
			buf[i] = hf.Sum64(d)
		}
		s.Accumulate(m.Values, buf[:n])
		data = data[n:]
	}
	return nil
}

func (s *Signer) compatible(m *MinHash) error {
	if m.Scheme != s.perm.Scheme || m.Seed != s.perm.Seed || len(m.Values) != s.NumPerm() {
		return fmt.Errorf("minhash: signature (scheme %s, seed %d, num_perm %d) does not match signer (scheme %s, seed %d, num_perm %d)",
			m.Scheme, m.Seed, len(m.Values), s.perm.Scheme, s.perm.Seed, s.NumPerm())
	}
	return nil
}

func (s *Signer) checkLen(dst []uint64) {
	if len(dst) != s.NumPerm() {
		panic(fmt.Sprintf("minhash: signature buffer has %d slots, signer has %d permutations", len(dst), s.NumPerm()))
	}
}
