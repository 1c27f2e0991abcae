// Package minhash computes MinHash signatures that are bit-for-bit identical to
// datasketch 2.0's MinHash and LeanMinHash, so that signatures made here at scale can be
// queried in Python and the reverse.
//
// The pipeline hashes every shingle once to 64 bits (HashFunc.Sum64) and a Signer turns a
// document's shingle hashes into num_perm minimums, one per permutation of the scheme's
// family (affine32, affine64 or datasketch's legacy Mersenne-prime family). With
// HashFunc SHA1 the signatures equal datasketch's MinHash.update_batch; XXHash is the
// much faster default and gives different (but equally good) signatures.
//
// The hot loop (Signer.SignInto) does not allocate and a Signer is safe to share
// read-only between goroutines. On amd64 the affine32 kernel has an AVX2 version in
// assembly, chosen at run time on CPUs with AVX2 and bit-identical to the plain-Go one.
package minhash

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cespare/xxhash/v2"
)

// Scheme names a datasketch 2.0 permutation family.
type Scheme string

// The permutation families of datasketch 2.0.
const (
	// Affine32 permutes fmix32(hash32) with a*h+b mod 2^32 (datasketch's default).
	Affine32 Scheme = "affine32"
	// Affine64 permutes fmix64(hash64) with a*h+b mod 2^64.
	Affine64 Scheme = "affine64"
	// Legacy is datasketch 1.x's ((a*h+b) mod (2^61-1)) & (2^32-1).
	Legacy Scheme = "legacy"
)

// DefaultScheme is datasketch's default, and the fastest kernel here.
const DefaultScheme = Affine32

// ParseScheme parses a scheme name; the empty string gives DefaultScheme.
func ParseScheme(s string) (Scheme, error) {
	switch Scheme(s) {
	case "":
		return DefaultScheme, nil
	case Affine32, Affine64, Legacy:
		return Scheme(s), nil
	}
	return "", fmt.Errorf("minhash: unknown scheme %q (valid: %s, %s, %s)", s, Affine32, Affine64, Legacy)
}

func (s Scheme) valid() error {
	_, err := ParseScheme(string(s))
	if err == nil && s == "" {
		err = fmt.Errorf("minhash: empty scheme (valid: %s, %s, %s)", Affine32, Affine64, Legacy)
	}
	return err
}

// EmptyValue is the value of every slot of an empty signature: datasketch's max hash,
// 2^32-1 for affine32 and legacy, 2^64-1 for affine64.
func (s Scheme) EmptyValue() uint64 {
	if s == Affine64 {
		return math.MaxUint64
	}
	return math.MaxUint32
}

// ValueBytes is the size of one hash value in datasketch's MinHash.hashvalues array
// (its numpy dtype): 4 for affine32 (uint32), 8 for affine64 and legacy (uint64).
// LSH band keys are built from values of this width.
func (s Scheme) ValueBytes() int {
	if s == Affine32 {
		return 4
	}
	return 8
}

// HashFunc names the function that turns a shingle's bytes into a 64-bit hash.
type HashFunc string

// The supported shingle hash functions.
const (
	// SHA1 is datasketch's sha1_hash64 (its low 32 bits are sha1_hash32): use it for
	// signatures identical to datasketch's.
	SHA1 HashFunc = "sha1"
	// XXHash is xxhash64: much faster than SHA1, not datasketch-identical.
	XXHash HashFunc = "xxhash"
)

// DefaultHashFunc is the fast default.
const DefaultHashFunc = XXHash

// ParseHashFunc parses a hash function name; the empty string gives DefaultHashFunc.
func ParseHashFunc(s string) (HashFunc, error) {
	switch HashFunc(s) {
	case "":
		return DefaultHashFunc, nil
	case SHA1, XXHash:
		return HashFunc(s), nil
	}
	return "", fmt.Errorf("minhash: unknown hash function %q (valid: %s, %s)", s, SHA1, XXHash)
}

// Sum64 hashes b to 64 bits. SHA1: the first 8 bytes of the SHA-1 digest, little-endian
// (datasketch's sha1_hash64, whose low 32 bits are sha1_hash32). XXHash: xxhash64.
// Any other value panics: parse user input with ParseHashFunc.
func (h HashFunc) Sum64(b []byte) uint64 {
	switch h {
	case XXHash:
		return xxhash.Sum64(b)
	case SHA1:
		d := sha1.Sum(b)
		return binary.LittleEndian.Uint64(d[:8])
	}
	panic(fmt.Sprintf("minhash: unknown hash function %q", string(h)))
}

// Func is Sum64 as a function value that goes straight to the hash: the method value
// h.Sum64 compares h's name on every call, a cost on every shingle of every document.
func (h HashFunc) Func() func([]byte) uint64 {
	if h == XXHash {
		return xxhash.Sum64
	}
	return h.Sum64
}

// Fmix32 is MurmurHash3's 32-bit finalizer (datasketch's _fmix for uint32).
func Fmix32(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// Fmix64 is MurmurHash3's 64-bit finalizer (datasketch's _fmix for uint64).
func Fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
