package indexwrite

import (
	"context"
	"fmt"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/segment"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
)

// writeSegment writes rows, sorted by id, as the new segment of an index of segments
// and returns it as a FileEntry (shard 0) for the driver's index.CommitSegment.
func writeSegment(ctx context.Context, w Target, rows []index.Row) (index.FileEntry, error) {
	if err := index.SortRows(rows); err != nil {
		return index.FileEntry{}, fmt.Errorf("index %s: %w", w.Dir, err)
	}
	p := w.Segments.Params
	signer, err := minhash.NewSigner(minhash.Scheme(p.Scheme), p.Seed, p.NumPerm)
	if err != nil {
		return index.FileEntry{}, err
	}
	sig, keys := make([]uint64, p.NumPerm), make([]uint64, p.Bands)
	e, err := index.WriteSegment(ctx, w.Dir, w.GenDir+"/"+index.SegmentName(0), w.Segments, func(b *segment.Builder) (int64, error) {
		var shingles int64
		for _, r := range rows {
			signer.SignInto(sig, r.Shingles)
			for band := range keys {
				keys[band] = lsh.BandKey(sig, band, p.Rows)
			}
			if err := b.Add(r.ID, r.Shingles, keys); err != nil {
				return 0, err
			}
			shingles += int64(len(r.Shingles))
		}
		return shingles, nil
	})
	if err != nil {
		return index.FileEntry{}, fmt.Errorf("index %s: %w", w.Dir, err)
	}
	return index.FileEntry{Path: e.Path, Rows: e.Documents, Shingles: e.Shingles, Bytes: e.Bytes, SHA256: e.SHA256}, nil
}
