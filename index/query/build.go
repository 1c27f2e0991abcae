package query

import (
	"context"
	"fmt"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/segment"
	"github.com/neardup/neardup/transforms/lsh"
	"github.com/neardup/neardup/transforms/minhash"
)

// AddDocs adds docs as one segment to the index at dir, whose current manifest is prev
// (index.NewSegmented for a new index), in this process, and commits the generation.
// Documents with Err set are skipped. It is the small-scale, single-process way to
// build or update an index; the dedup pipeline does the same at scale.
func AddDocs(ctx context.Context, dir string, prev *index.Manifest, docs []Doc) (*index.Manifest, error) {
	p := prev.Params
	sh, err := ShingleConfig(p).Shingler()
	if err != nil {
		return nil, err
	}
	signer, err := minhash.NewSigner(minhash.Scheme(p.Scheme), p.Seed, p.NumPerm)
	if err != nil {
		return nil, err
	}
	sig, keys := make([]uint64, p.NumPerm), make([]uint64, p.Bands)
	return index.AddSegment(ctx, dir, prev, func(b *segment.Builder) (int64, error) {
		var shingles int64
		for _, d := range docs {
			if d.Err != nil {
				continue
			}
			hashes, _ := sh.Hashes(d.Text)
			signer.SignInto(sig, hashes)
			for band := range keys {
				keys[band] = lsh.BandKey(sig, band, p.Rows)
			}
			if err := b.Add(d.ID, hashes, keys); err != nil {
				return 0, fmt.Errorf("document %q: %w", d.ID, err)
			}
			shingles += int64(len(hashes))
		}
		return shingles, nil
	})
}
