package elem

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/neardup/neardup/internal/hashsort"
)

// BandEntry puts a document in one LSH bucket, Key. It carries the first of the
// document's set fingerprints (SetKey's Hash) so a bucket can skip exact duplicates,
// which collapse handles.
//
// Why not both fingerprints, as collapse compares: an entry travels once per band, and
// the second word would add a quarter to its bytes. The one word risks only recall: two
// different sets in one bucket with equal Hash (2⁻⁶⁴ likely per pair of a bucket) keep
// one entry there, so that bucket gives the other set no candidate. Every candidate is
// still verified, and collapse's exact-duplicate edges still need both words.
type BandEntry struct {
	Key, Hash uint64
	ID        string
}

// BandBatch holds band entries, or (Spilled) references to local files that hold them
// (internal/spill), each record a run of entries (Codec.Append).
type BandBatch = Batch[BandEntry]

// Bands codes band entries. Ids are front-coded (wire.Encoder.Front): the entries of a
// partition's batch come in the order their documents were read, whose ids often share
// their start. A decoded id shares its batch's memory (Codec.Whole) or, when it shares
// its start, an arena of the batch's (wire.Decoder.Front): a band partition holds many
// small ids.
var Bands = Codec[BandEntry]{
	Put: func(e *encoder, be BandEntry) {
		e.U64(be.Key)
		e.U64(be.Hash)
		e.Front(be.ID)
	},
	Get:    func(d *decoder) BandEntry { return BandEntry{Key: d.U64(), Hash: d.U64(), ID: d.Front()} },
	Size:   func(BandEntry) int { return 40 },
	Spills: true,
	Whole:  true,
}

func init() { RegisterBatch(Bands) }

// CompactBands sorts band entries by (band key, set) and keeps one entry per
// (band key, set), the one with the smallest id, and one more when the set is both
// indexed and not: the smallest id that is not indexed. A pair of two indexed documents
// is never formed (BothIndexed), so a new copy of an indexed set must meet the set's
// indexed neighbours itself, as a format 2 lookup meets them. It is the same whatever
// order the entries arrived in.
func CompactBands(entries []BandEntry) []BandEntry {
	entries = SortBands(entries)
	return slices.CompactFunc(entries, func(a, b BandEntry) bool {
		return a.Key == b.Key && a.Hash == b.Hash &&
			(IDClass(a.ID) == ClassIndexed) == (IDClass(b.ID) == ClassIndexed)
	})
}

// CompareBands orders band entries by (band key, set, id). Not cmp.Or, which
// evaluates every comparison: band keys almost always differ, and the id comparison is
// a string comparison.
func CompareBands(a, b BandEntry) int {
	switch {
	case a.Key != b.Key:
		return cmp.Compare(a.Key, b.Key)
	case a.Hash != b.Hash:
		return cmp.Compare(a.Hash, b.Hash)
	}
	return cmp.Compare(a.ID, b.ID)
}

// SortBands sorts by CompareBands. Band keys are hashes, spread evenly over their top
// bits whatever the partition (PartOfHash uses bits 32 and up, modulo), so hashsort
// groups them by those bits and sorts only the small groups by comparison: cheaper
// than a comparison sort of the whole partition. Copies of one band key stay in one
// group, sorted like any other.
func SortBands(entries []BandEntry) []BandEntry {
	hashsort.Func(entries, func(e BandEntry) uint64 { return e.Key }, CompareBands)
	return entries
}

// compactFrom is the gathered size from which gathering collapses identical sets:
// below it a partition's entries are kept as they come and sorted once, by the
// bucketing; above it, which only heavy skew or a huge partition reaches, each doubling
// is compacted once, so the sort costs about as much again as the bucketing's.
const compactFrom = 1 << 20

// AppendBands gathers band batches. Copies of one page send identical entries to the
// same band partitions; keeping one entry per (band key, set) while gathering (the
// smallest id, as the bucketing would) means a million copies put one entry, not a
// million, in each of those partitions.
func AppendBands(a, b BandBatch) BandBatch {
	n := len(a.Items)
	return BandBatch{Items: CompactGathered(append(a.Items, b.Items...), n), Spilled: append(a.Spilled, b.Spilled...)}
}

// CompactGathered compacts entries, which held n before the latest were gathered, each
// time their count passes a power of two from compactFrom on.
func CompactGathered(entries []BandEntry, n int) []BandEntry {
	if m := len(entries); m >= compactFrom && bits.Len(uint(n)) != bits.Len(uint(m)) {
		return CompactBands(entries)
	}
	return entries
}
