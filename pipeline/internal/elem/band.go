package elem

// BandEntry puts a document in one LSH bucket, Key. It carries the document's set
// fingerprints (SetKey's Hash and Check) so a bucket can skip exact duplicates, which
// collapse handles.
type BandEntry struct {
	Key         uint64
	Hash, Check uint64
	ID          string
}

// BandBatch holds band entries, or (Spilled) references to local files that hold them
// (internal/spill), each record a run of entries (Codec.Append).
type BandBatch = Batch[BandEntry]

// Bands codes band entries. A decoded id shares its batch's memory (Codec.Whole): a
// band partition holds many small ids.
var Bands = Codec[BandEntry]{
	Put: func(e *encoder, be BandEntry) {
		e.U64(be.Key)
		e.U64(be.Hash)
		e.U64(be.Check)
		e.Str(be.ID)
	},
	Get:    func(d *decoder) BandEntry { return BandEntry{Key: d.U64(), Hash: d.U64(), Check: d.U64(), ID: d.Str()} },
	Size:   func(BandEntry) int { return 48 },
	Spills: true,
	Whole:  true,
}

func init() { RegisterBatch(Bands) }
