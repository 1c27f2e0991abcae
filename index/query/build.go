package query

import (
	"context"
	"fmt"
	"iter"
	"runtime"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/segment"
	"github.com/neardup/neardup/internal/ordered"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
)

// Item is one document to add to an index: its id and either its text or, when Text
// is empty and Hashes is set, its sorted shingle hashes (from an index of format 1); or,
// when Line is set, a JSONL line to parse (ParseLine) on a worker goroutine, a line that
// is no document being counted in the result's rejected and skipped.
type Item struct {
	ID     string
	Text   string
	Hashes []uint64
	Line   *Line
}

// Line is a JSONL line of a named input.
type Line struct {
	Source string
	Num    int64
	Bytes  []byte
	Fields Fields
}

type featured struct {
	id       string
	hashes   []uint64
	keys     []uint64
	rejected bool
}

// Add adds items as one segment to the index at dir, whose current manifest is prev
// (index.NewSegmented for a new index), in this process, and commits the generation.
// Items are shingled and signed on one goroutine per core and added in their order.
// It is the single-process way to build, convert or update an index.
func Add(ctx context.Context, dir string, prev *index.Manifest, items iter.Seq2[Item, error]) (*index.Manifest, error) {
	m, _, err := AddCounting(ctx, dir, prev, items)
	return m, err
}

// AddCounting is Add, and also returns the number of Line items that were no document.
func AddCounting(ctx context.Context, dir string, prev *index.Manifest, items iter.Seq2[Item, error]) (*index.Manifest, int64, error) {
	p := prev.Params
	sh, err := ShingleConfig(p).Shingler()
	if err != nil {
		return nil, 0, err
	}
	signer, err := minhash.NewSigner(minhash.Scheme(p.Scheme), p.Seed, p.NumPerm)
	if err != nil {
		return nil, 0, err
	}
	var rejected int64
	pool := ordered.New(runtime.GOMAXPROCS(0), 64, func() func(Item) featured {
		sig := make([]uint64, p.NumPerm)
		return func(it Item) featured {
			if l := it.Line; l != nil {
				d := parseDoc(l.Bytes, l.Source, l.Num, l.Fields)
				if d.Err != nil {
					return featured{rejected: true}
				}
				it = Item{ID: d.ID, Text: d.Text}
			}
			h := it.Hashes
			if it.Text != "" || h == nil {
				h, _ = sh.Hashes(it.Text)
			}
			signer.SignInto(sig, h)
			keys := make([]uint64, p.Bands)
			for band := range keys {
				keys[band] = lsh.BandKey(sig, band, p.Rows)
			}
			return featured{id: it.ID, hashes: h, keys: keys}
		}
	})
	defer pool.Close()
	m, err := index.AddSegment(ctx, dir, prev, func(b *segment.Builder) (int64, error) {
		var shingles int64
		var addErr error
		add := func(f featured) {
			if f.rejected {
				rejected++
				return
			}
			if addErr == nil {
				if addErr = b.Add(f.id, f.hashes, f.keys); addErr != nil {
					addErr = fmt.Errorf("document %q: %w", f.id, addErr)
				}
				shingles += int64(len(f.hashes))
			}
		}
		for it, err := range items {
			if err != nil {
				return 0, err
			}
			pool.Add(it, add)
		}
		pool.Flush(add)
		return shingles, addErr
	})
	return m, rejected, err
}

// AddDocs adds the documents of docs without an error, as Add does.
func AddDocs(ctx context.Context, dir string, prev *index.Manifest, docs []Doc) (*index.Manifest, error) {
	return Add(ctx, dir, prev, func(yield func(Item, error) bool) {
		for _, d := range docs {
			if d.Err == nil && !yield(Item{ID: d.ID, Text: d.Text}, nil) {
				return
			}
		}
	})
}

// Convert rewrites an index of format 1 (Parquet shards, at dir with manifest old) as
// the next generation in format 2: one segment of its documents, their stored hashes
// narrowed to bits. Readers of the old generation keep it until the next commit.
func Convert(ctx context.Context, dir string, old *index.Manifest, bits int) (*index.Manifest, error) {
	base := index.NewSegmented(old.Params, bits)
	base.Generation = old.Generation
	base.Files, base.Retired = old.Files, old.Retired // retired by the new generation, deleted by the next
	return Add(ctx, dir, base, func(yield func(Item, error) bool) {
		stop := fmt.Errorf("stop")
		for _, path := range old.ShardPaths(dir) {
			err := index.ReadShard(ctx, path, func(_ int64, r index.Row) error {
				if !yield(Item{ID: r.ID, Hashes: r.Shingles}, nil) {
					return stop
				}
				return nil
			})
			if err == stop {
				return
			}
			if err != nil {
				yield(Item{}, err)
				return
			}
		}
	})
}
