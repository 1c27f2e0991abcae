package minhash

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchShingles makes n distinct word bigrams of about 30 bytes (two lower-case words of
// 10-19 letters), like the shingles of real text.
func benchShingles(n int) [][]byte {
	rng := rand.New(rand.NewPCG(42, uint64(n)))
	word := func() string {
		b := make([]byte, 10+rng.IntN(10))
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		return string(b)
	}
	seen := map[string]bool{}
	out := make([][]byte, 0, n)
	for len(out) < n {
		s := word() + " " + word()
		if !seen[s] {
			seen[s] = true
			out = append(out, []byte(s))
		}
	}
	return out
}

// BenchmarkSign is the realistic per-document cost: hash every shingle's bytes, then sign.
// docs/s is one core's throughput; ns/shingle-perm is the cost per (shingle x permutation),
// hashing included.
func BenchmarkSign(b *testing.B) {
	for _, scheme := range []Scheme{Affine32, Affine64, Legacy} {
		for _, hf := range []HashFunc{XXHash, SHA1} {
			for _, n := range []int{200, 1000} {
				for _, k := range []int{128, 256} {
					name := fmt.Sprintf("scheme=%s/kernel=%s/hash=%s/shingles=%d/perms=%d", scheme, kernelName(scheme), hf, n, k)
					b.Run(name, func(b *testing.B) {
						s, err := NewSigner(scheme, 1, k)
						if err != nil {
							b.Fatal(err)
						}
						doc := benchShingles(n)
						hashes := make([]uint64, n)
						dst := make([]uint64, k)
						b.ResetTimer()
						for b.Loop() {
							for i, sh := range doc {
								hashes[i] = hf.Sum64(sh)
							}
							s.SignInto(dst, hashes)
						}
						reportDocs(b, n, k)
					})
				}
			}
		}
	}
}

// BenchmarkKernel is the signing loop alone, on precomputed shingle hashes.
func BenchmarkKernel(b *testing.B) {
	for _, scheme := range []Scheme{Affine32, Affine64, Legacy} {
		for _, k := range []int{128, 256} {
			b.Run(fmt.Sprintf("scheme=%s/kernel=%s/shingles=200/perms=%d", scheme, kernelName(scheme), k), func(b *testing.B) {
				s, err := NewSigner(scheme, 1, k)
				if err != nil {
					b.Fatal(err)
				}
				hashes := make([]uint64, 200)
				for i, sh := range benchShingles(200) {
					hashes[i] = XXHash.Sum64(sh)
				}
				dst := make([]uint64, k)
				for b.Loop() {
					s.SignInto(dst, hashes)
				}
				reportDocs(b, len(hashes), k)
			})
		}
	}
}

func reportDocs(b *testing.B, shingles, perms int) {
	sec := b.Elapsed().Seconds()
	if sec <= 0 || b.N == 0 {
		return
	}
	b.ReportMetric(float64(b.N)/sec, "docs/s")
	b.ReportMetric(sec*1e9/float64(b.N)/float64(shingles*perms), "ns/shingle-perm")
}

// kernelName labels results with the kernel that signed: "avx2" for affine32 in a
// build for amd64 on an AVX2 CPU (unless NEARDUP_MINHASH_KERNEL=go), otherwise "go".
func kernelName(s Scheme) string {
	if s == Affine32 && useAVX2 {
		return "avx2"
	}
	return "go"
}
