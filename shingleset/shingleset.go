// Package shingleset turns a text into the set of shingle hashes the dedup method
// compares: normalize, shingle, hash, and cap huge documents. Every stage of the pipeline,
// the CLI's compare and sign, and the report shingle through it, so they always agree.
package shingleset

import (
	"slices"

	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/normalize"
	"github.com/neardup/neardup/shingle"
)

// Shingler turns a text into its shingle-hash set exactly as every stage must: the
// featurizing pass, the verification re-read and the CLI's compare and sign share it.
type Shingler struct {
	opts        shingle.Options
	norm        normalize.Options
	sum         func([]byte) uint64
	maxShingles int
}

// Hashes returns the sorted distinct shingle hashes of text and whether they were capped.
func (s *Shingler) Hashes(text string) ([]uint64, bool) {
	return Cap(shingle.Hashes(normalize.Text(text, s.norm), s.opts, s.sum), s.maxShingles)
}

// Scratch is the reusable memory of Set: one per goroutine.
type Scratch struct {
	text     []byte
	hashes   []uint64
	distinct shingle.Distinct
}

// Set returns the same set as Hashes, in no particular order, in memory owned by scratch
// (valid until its next use). It is for the featurizing pass, which only fingerprints
// and signs the set: neither needs it sorted, and sorting is a cost on every document.
func (s *Shingler) Set(text string, scratch *Scratch) ([]uint64, bool) {
	norm := normalize.TextReusing(text, s.norm, &scratch.text)
	h := shingle.AppendHashes(scratch.hashes[:0], norm, s.opts, s.sum)
	scratch.hashes = h
	h = scratch.distinct.Keep(h)
	if s.maxShingles > 0 && len(h) > s.maxShingles {
		hashsort.Uint64s(h) // the cap keeps the smallest hashes
	}
	return Cap(h, s.maxShingles)
}

// Cap keeps the max smallest of the sorted distinct hashes h (all of them when max is
// 0) and says whether any were dropped.
func Cap(h []uint64, max int) ([]uint64, bool) {
	if max > 0 && len(h) > max {
		// Bottom-k: the smallest hashes are a uniform sample of the set, and a 50 MB
		// document shuffles and compares no more than any other. The Jaccard of two
		// capped sets tracks the full sets' when their sizes are alike but reads low
		// when they differ (B ⊂ A, |B| = 0.9·|A|, both over the cap: about 0.82 for a
		// true 0.90), and the exact baseline does not cap.
		return slices.Clip(h[:max]), true
	}
	return h, false
}

// Config is what every stage that shingles needs to know, in fields a DoFn can
// carry.
type Config struct {
	Kind        string
	N           int
	StripPunct  bool
	Hash        string
	MaxShingles int
}

// Full is the configuration without the cap: the whole set of every document. Dedup
// signs and verifies on it, so that capped documents collide in bands and are verified
// at their exact Jaccard; only index rows are capped.
func (c Config) Full() Config {
	c.MaxShingles = 0
	return c
}

// Shingler validates the configuration and builds its Shingler.
func (c Config) Shingler() (*Shingler, error) {
	k, err := shingle.ParseKind(c.Kind)
	if err != nil {
		return nil, err
	}
	h, err := minhash.ParseHashFunc(c.Hash)
	if err != nil {
		return nil, err
	}
	opts := shingle.Options{Kind: k, N: c.N}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return &Shingler{opts: opts, norm: normalize.Options{StripPunct: c.StripPunct}, sum: h.Func(), maxShingles: c.MaxShingles}, nil
}
