package against

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/prismtest"
	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/internal/tally/tallytest"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/features"
	"github.com/neardup/neardup/pipeline/internal/stagetest"
	"github.com/neardup/neardup/record"
	"github.com/neardup/neardup/shingle"
	"github.com/neardup/neardup/shingleset"
)

// stagePartitions is the partition count of the hand-built collections and the stage.
const stagePartitions = 3

// checkSeed seeds the second set fingerprint features.Sign makes (features' checkSeed).
const checkSeed = 0x6e656172647570

func init() {
	register.Function2x0(docText)
}

// docText writes a document as "id file:line text".
func docText(d record.Doc, emit func(string)) {
	emit(fmt.Sprintf("%s %s:%d %s", d.ID, d.File, d.Line, d.Text))
}

// TestPrefer runs Prefer alone: the documents of the preferred files, and only those,
// move into the preferred class; nothing else about any document changes. With no
// preferred file the documents pass as they are.
func TestPrefer(t *testing.T) {
	docs := []record.Doc{
		{ID: "a", Text: "one", File: "in.jsonl", Line: 1},
		{ID: "b", Text: "two", File: "pref.jsonl", Line: 1},
		{ID: "c", Text: "three", File: "pref.jsonl", Line: 2},
		{ID: "d", Text: "four", File: "other.jsonl", Line: 1},
	}
	for _, tc := range []struct {
		name      string
		preferred []string
		want      []string
	}{
		{name: "one preferred file", preferred: []string{"pref.jsonl"}, want: []string{
			"a in.jsonl:1 one", elem.PreferredPrefix + "b pref.jsonl:1 two", elem.PreferredPrefix + "c pref.jsonl:2 three", "d other.jsonl:1 four"}},
		{name: "two preferred files", preferred: []string{"other.jsonl", "pref.jsonl"}, want: []string{
			"a in.jsonl:1 one", elem.PreferredPrefix + "b pref.jsonl:1 two", elem.PreferredPrefix + "c pref.jsonl:2 three", elem.PreferredPrefix + "d other.jsonl:1 four"}},
		{name: "none preferred", want: []string{
			"a in.jsonl:1 one", "b pref.jsonl:1 two", "c pref.jsonl:2 three", "d other.jsonl:1 four"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			out := Prefer(s, beam.CreateList(s, docs), tc.preferred)
			passert.Equals(s, beam.ParDo(s, docText, out), stagetest.Any(tc.want)...)
			require.NoError(t, ptest.Run(p))
		})
	}
}

// TestWithIndexes runs WithIndexes alone on the shard files of two indexes: every row
// becomes a document of its index's class, located at its shard file and 1-based row
// number, with the set fingerprints and band keys of its stored hashes (length 0: the
// text is not stored), keyed as features.Sign keys them; the input collections pass
// through; the indexed documents are counted, with their shingles and empty sets added
// to the input's counts; and they are never looked up in --against indexes, here one
// that does not exist.
func TestWithIndexes(t *testing.T) {
	o := features.Options{Shingle: shingleset.Config{Kind: "word", N: 2, Hash: "xxhash"},
		Scheme: "affine32", Seed: 1, NumPerm: 4, Bands: 2, Rows: 2, Partitions: stagePartitions,
		Lookup: []features.LookupRef{{Dir: filepath.Join(t.TempDir(), "missing")}}}
	sh, err := o.Shingle.Shingler()
	require.NoError(t, err)
	signer, err := minhash.NewSigner(minhash.Scheme(o.Scheme), o.Seed, o.NumPerm)
	require.NoError(t, err)
	row := func(id, text string) index.Row {
		h, _ := sh.Hashes(text)
		return index.Row{ID: id, Shingles: h}
	}
	// Rows in id order, as shards hold them: 4 + 0 + 2 shingles in index 0, 3 in index 1.
	shards := []struct {
		ord  int
		rows []index.Row
	}{
		{0, []index.Row{row("p", "the quick brown fox jumps"), row("q", ""), row("r", "lazy dog sleeps")}},
		{1, []index.Row{row("p", "a b c d")}},
	}
	const shingles, empty = 9, 1

	ctx := context.Background()
	dir := t.TempDir()
	var refs []ShardRef
	var locs, sets, bands []string
	for k, sd := range shards {
		rel := fmt.Sprintf("index%d/%s", sd.ord, index.ShardName(k))
		_, err := index.WriteShard(ctx, dir, rel, k, sd.rows)
		require.NoError(t, err)
		path := filepath.Join(dir, rel)
		refs = append(refs, ShardRef{Ord: sd.ord, Path: path})
		for i, r := range sd.rows {
			id := elem.IndexedID(sd.ord, r.ID)
			key := elem.SetKey{Hash: shingle.SetHash(r.Shingles), Check: shingle.SetHashSeed(r.Shingles, checkSeed), ID: id}
			locs = append(locs, fmt.Sprintf("%s %s:%d", id, path, i+1))
			sets = append(sets, stagetest.SetText(key))
			sig := signer.Sign(r.Shingles).Values
			for band := range o.Bands {
				bands = append(bands, stagetest.BandText(elem.BandEntry{Key: lsh.BandKey(sig, band, o.Rows), Hash: key.Hash, ID: id}))
			}
		}
	}
	// One input document's outputs, as Sign made them.
	inLoc := elem.IDLoc{ID: "a", File: "in.jsonl", Line: 1}
	inSet := elem.SetKey{Hash: 1 << 40, Check: 2, ID: "a", Length: 5}
	inBand := elem.BandEntry{Key: 3 << 33, Hash: 1 << 40, ID: "a"}
	locs = append(locs, "a in.jsonl:1")
	sets = append(sets, stagetest.SetText(inSet))
	bands = append(bands, stagetest.BandText(inBand))

	p, s := beam.NewPipelineWithRoot()
	inCounts := beam.CreateList(s, []tally.Count{{Name: "shingles", N: 100}, {Name: "empty_documents", N: 2}, {Name: "rejected", N: 7}})
	in := beam.Flatten(s, beam.ParDo(s, locFirst, stagetest.Locs(s, stagePartitions, []elem.IDLoc{inLoc})),
		beam.ParDo(s, setFirst, stagetest.Sets(s, stagePartitions, []elem.SetKey{inSet})),
		beam.ParDo(s, bandFirst, stagetest.Bands(s, stagePartitions, []elem.BandEntry{inBand})))
	inRejected := beam.CreateList(s, []record.Rejected{{File: "in.jsonl", Line: 2, Reason: "bad"}})
	got := elem.SplitFirst(s, WithIndexes(s, refs, o, features.Signed{First: elem.FirstOf(s, in, inRejected, inCounts, stagePartitions)}).First)
	gotLocs, gotSets, gotBands, counts := got.Locs, got.Sets, got.Bands, got.Counts
	passert.Equals(s, got.Rejected, record.Rejected{File: "in.jsonl", Line: 2, Reason: "bad"})
	passert.Equals(s, stagetest.LocTexts(s, stagePartitions, gotLocs), stagetest.Any(locs)...)
	passert.Equals(s, stagetest.SetTexts(s, stagePartitions, gotSets), stagetest.Any(sets)...)
	passert.Equals(s, stagetest.BandTexts(s, stagePartitions, gotBands), stagetest.Any(bands)...)
	require.Equal(t, map[string]int64{"indexed_documents": 4, "shingles": 100 + shingles, "empty_documents": 2 + empty,
		"capped_documents": 0, "index_verified_pairs": 0, "rejected": 7}, tallytest.Run(t, p, s, counts))
}

// TestWithIndexesNone: with no shard file the collections are returned as they are.
func TestWithIndexesNone(t *testing.T) {
	_, s := beam.NewPipelineWithRoot()
	in := features.Signed{First: beam.Impulse(s)}
	require.Equal(t, in, WithIndexes(s, nil, features.Options{}, in))
}

func init() {
	register.Function2x2(locFirst)
	register.Function2x2(setFirst)
	register.Function2x2(bandFirst)
}

// locFirst, setFirst and bandFirst carry a batch in a First, as features.Sign does.
func locFirst(p int, b elem.LocBatch) (int, elem.First)   { return p, elem.First{Locs: b} }
func setFirst(p int, b elem.SetBatch) (int, elem.First)   { return p, elem.First{Sets: b} }
func bandFirst(p int, b elem.BandBatch) (int, elem.First) { return p, elem.First{Bands: b} }

// TestMain runs the tests on Prism.
func TestMain(m *testing.M) { prismtest.Main(m) }
