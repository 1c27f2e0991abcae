package features

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/segment"
	"github.com/neardup/neardup/internal/tally/tallytest"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/stagetest"
	"github.com/neardup/neardup/record"
	"github.com/neardup/neardup/shingle"
	"github.com/neardup/neardup/shingleset"
)

func init() { register.Function3x0(edgeKeys) }

// edgeKeys writes the key of each edge.
func edgeKeys(k int, b elem.EdgeBatch, emit func(int)) {
	for range b.Items {
		emit(k)
	}
}

// signOptions are Sign's settings in these tests: word bigrams, and eight bands of one
// row, so that two documents at Jaccard 0.8 all but surely share a band.
func signOptions(maxShingles int) Options {
	return Options{Shingle: shingleset.Config{Kind: "word", N: 2, StripPunct: true, Hash: "xxhash", MaxShingles: maxShingles},
		Scheme: "affine32", Seed: 1, NumPerm: 8, Bands: 8, Rows: 1, Partitions: stagePartitions}
}

// signed is what Sign must make of one document, computed with the pure packages:
// its shingle set (shingleset), its fingerprints (shingle.SetHash) and its band keys
// (minhash, lsh).
type signed struct {
	hashes []uint64
	set    elem.SetKey
	bands  []uint64
}

func signByHand(t *testing.T, o Options, d record.Doc, runes int64) signed {
	sh, err := o.Shingle.Full().Shingler()
	require.NoError(t, err)
	signer, err := minhash.NewSigner(minhash.Scheme(o.Scheme), o.Seed, o.NumPerm)
	require.NoError(t, err)
	hashes, _ := sh.Hashes(d.Text)
	sig := signer.Sign(hashes).Values
	r := signed{hashes: hashes, set: elem.SetKey{Hash: shingle.SetHash(hashes), Check: shingle.SetHashSeed(hashes, checkSeed), ID: d.ID, Length: runes}}
	for band := range o.Bands {
		r.bands = append(r.bands, lsh.BandKey(sig, band, o.Rows))
	}
	return r
}

// TestSign runs Sign alone on hand-made documents: each document's location goes to
// its id's partition, its set fingerprints (equal for two texts that differ in case
// and punctuation only; length in runes, not bytes) to the hash's partition and one
// entry per band to the band key's partition, spilled or not; shingles are counted
// over the full sets, and a document is empty with none and capped with more than
// --max-shingles; all in one collection (elem.First), split after one grouping.
// Without Lookup indexes there is no edges output at all.
func TestSign(t *testing.T) {
	docs := []struct {
		doc      record.Doc
		runes    int64
		shingles int
	}{
		{record.Doc{ID: "a", Text: "the quick brown fox jumps", File: "in.jsonl", Line: 1}, 25, 4},
		{record.Doc{ID: "b", Text: "The quick brown fox jumps!", File: "in.jsonl", Line: 2}, 26, 4},
		{record.Doc{ID: "c", Text: "", File: "in.jsonl", Line: 3}, 0, 0},
		{record.Doc{ID: "d", Text: "één twee drie vier vijf zes", File: "more.jsonl", Line: 1}, 27, 5},
	}
	o := signOptions(4) // d, of 5 shingles, is capped; a and b, of 4, are not
	var in []record.Doc
	var locs, sets, bands []string
	var fingerprints []uint64
	for _, d := range docs {
		in = append(in, d.doc)
		h := signByHand(t, o, d.doc, d.runes)
		fingerprints = append(fingerprints, h.set.Hash)
		require.Len(t, h.hashes, d.shingles, d.doc.Text)
		locs = append(locs, fmt.Sprintf("%s %s:%d", d.doc.ID, d.doc.File, d.doc.Line))
		sets = append(sets, stagetest.SetText(h.set))
		for _, k := range h.bands {
			bands = append(bands, stagetest.BandText(elem.BandEntry{Key: k, Hash: h.set.Hash, ID: d.doc.ID}))
		}
	}
	require.Equal(t, fingerprints[0], fingerprints[1], "a and b have one set")
	for _, spill := range []bool{false, true} {
		t.Run(fmt.Sprintf("spill=%v", spill), func(t *testing.T) {
			o := o
			if spill {
				o.SpillDir = t.TempDir()
			}
			p, s := beam.NewPipelineWithRoot()
			signed := Sign(s, beam.CreateList(s, in), o)
			first := elem.SplitFirst(s, signed.First)
			gotLocs, gotSets, gotBands, edges, counts := first.Locs, first.Sets, first.Bands, signed.Indexed, first.Counts
			passert.Equals(s, stagetest.LocTexts(s, stagePartitions, gotLocs), stagetest.Any(locs)...)
			passert.Equals(s, stagetest.SetTexts(s, stagePartitions, gotSets), stagetest.Any(sets)...)
			passert.Equals(s, stagetest.BandTexts(s, stagePartitions, gotBands), stagetest.Any(bands)...)
			require.False(t, edges.IsValid(), "an edges output without Lookup indexes")
			require.Equal(t, map[string]int64{"shingles": 13, "empty_documents": 1, "capped_documents": 1, "index_verified_pairs": 0},
				tallytest.Run(t, p, s, counts))
		})
	}
}

// TestSignLooksUp runs Sign alone against an index of segments: each document is
// joined to every indexed document whose exact Jaccard with it reaches the index's
// threshold by an edge under key 0, from the indexed document (whose length is not
// known here) to the document, and the edges are counted.
func TestSignLooksUp(t *testing.T) {
	o := signOptions(0)
	params := index.Params{NumPerm: o.NumPerm, Scheme: o.Scheme, Hash: o.Shingle.Hash, Seed: o.Seed, Bands: o.Bands, Rows: o.Rows,
		Threshold: 0.75, Shingle: o.Shingle.Kind, NGram: o.Shingle.N, Normalization: "nfkc,lower,whitespace,strip-punct"}
	// x shares a's 4 bigrams and has one more: 4/5 = 0.80 with a (and b, a's copy); y
	// shares d's 5 and has one more: 5/6 = 0.83; z shares nothing.
	indexed := []record.Doc{
		{ID: "x", Text: "the quick brown fox jumps over"},
		{ID: "y", Text: "één twee drie vier vijf zes zeven"},
		{ID: "z", Text: "nothing in common here"},
	}
	docs := []record.Doc{
		{ID: "a", Text: "the quick brown fox jumps", File: "in.jsonl", Line: 1},
		{ID: "b", Text: "The quick brown fox jumps!", File: "in.jsonl", Line: 2},
		{ID: "c", Text: "the lazy dog sleeps", File: "in.jsonl", Line: 3},
		{ID: "d", Text: "één twee drie vier vijf zes", File: "in.jsonl", Line: 4},
	}
	x, y := elem.IndexedID(0, "x"), elem.IndexedID(0, "y")
	want := []string{x + " a 0.80 0 25", x + " b 0.80 0 26", y + " d 0.83 0 27"}

	ctx := context.Background()
	dir := t.TempDir()
	m, err := index.AddSegment(ctx, dir, index.NewSegmented(params, 64), func(b *segment.Builder) (int64, error) {
		var n int64
		for _, d := range indexed {
			h := signByHand(t, o, d, 0)
			if err := b.Add(d.ID, h.hashes, h.bands); err != nil {
				return 0, err
			}
			n += int64(len(h.hashes))
		}
		return n, nil
	})
	require.NoError(t, err)
	o.Lookup = []LookupRef{{Ord: 0, Dir: dir, Params: params, Generation: m.Generation}}

	p, s := beam.NewPipelineWithRoot()
	signed := Sign(s, beam.CreateList(s, docs), o)
	edges, counts := signed.Indexed, elem.SplitFirst(s, signed.First).Counts
	passert.Equals(s, stagetest.Edges(s, edges), stagetest.Any(want)...)
	passert.Equals(s, beam.ParDo(s, edgeKeys, edges), 0, 0, 0)
	require.Equal(t, int64(len(want)), tallytest.Run(t, p, s, counts)["index_verified_pairs"])
}
