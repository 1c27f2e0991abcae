// Package query answers "which indexed documents are near-duplicates of this text?"
// from an index of segments: the text is shingled, signed and banded exactly as the
// dedup pipeline does with the index's parameters, its band keys are looked up in every
// segment, and each candidate's stored set is compared by exact Jaccard.
package query

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/shingleset"
)

// Match is an indexed near-duplicate.
type Match = index.Match

// Engine answers queries against one open index generation. It is safe for concurrent
// use.
type Engine struct {
	Index  *index.Segments
	sh     *shingleset.Shingler
	signer *minhash.Signer
	p      index.Params
	pool   sync.Pool
}

type scratch struct {
	sig  []uint64
	keys []uint64
	idx  index.Scratch
}

// ShingleConfig is the shingling an index's parameters describe.
func ShingleConfig(p index.Params) shingleset.Config {
	return shingleset.Config{Kind: p.Shingle, N: p.NGram, StripPunct: strings.Contains(p.Normalization, "strip-punct"),
		Hash: p.Hash, MaxShingles: p.MaxShingles}
}

// Open opens the index at dir with its own parameters.
func Open(ctx context.Context, dir string) (*Engine, error) {
	m, err := index.ReadManifest(ctx, dir)
	if err != nil {
		return nil, err
	}
	s, err := index.OpenSegments(ctx, dir, m.Params)
	if err != nil {
		return nil, err
	}
	e, err := New(s)
	if err != nil {
		s.Close()
		return nil, err
	}
	return e, nil
}

// New makes an engine for an open index.
func New(s *index.Segments) (*Engine, error) {
	p := s.Manifest.Params
	sh, err := ShingleConfig(p).Shingler()
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", s.Dir, err)
	}
	signer, err := minhash.NewSigner(minhash.Scheme(p.Scheme), p.Seed, p.NumPerm)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", s.Dir, err)
	}
	return &Engine{Index: s, sh: sh, signer: signer, p: p}, nil
}

// Close closes the index.
func (e *Engine) Close() error { return e.Index.Close() }

// Features returns a text's sorted shingle hashes and its band keys, appended to keys.
func (e *Engine) Features(text string, sig, keys []uint64) (hashes, bandKeys []uint64) {
	hashes, _ = e.sh.Hashes(text)
	e.signer.SignInto(sig, hashes)
	for band := range e.p.Bands {
		keys = append(keys, lsh.BandKey(sig, band, e.p.Rows))
	}
	return hashes, keys
}

// NewSig returns scratch memory for Features' signature.
func (e *Engine) NewSig() []uint64 { return make([]uint64, e.p.NumPerm) }

// Near returns the indexed near-duplicates of text, by descending Jaccard, then id.
func (e *Engine) Near(text string) ([]index.Match, error) {
	sc, _ := e.pool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{sig: e.NewSig()}
	}
	defer e.pool.Put(sc)
	hashes, keys := e.Features(text, sc.sig, sc.keys[:0])
	sc.keys = keys
	var out []index.Match
	if err := e.Index.Near(hashes, keys, &sc.idx, func(m index.Match) { out = append(out, m) }); err != nil {
		return nil, err
	}
	index.SortMatches(out)
	return out, nil
}
