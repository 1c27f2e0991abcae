package elem

// SetKey is a document's exact-duplicate key: two independent 64-bit fingerprints of
// its shingle-hash set, Hash and Check.
type SetKey struct {
	Hash, Check uint64
	ID          string
	Length      int64
}

// SetBatch holds set keys, gathered by set partition, or (Spilled) references to local
// files that hold them (internal/spill), each record a run of keys (Codec.Append):
// every document has one, so through the runner they are held in its memory with the
// corpus.
type SetBatch = Batch[SetKey]

// Sets codes set keys.
var Sets = Codec[SetKey]{
	Put: func(e *encoder, k SetKey) {
		e.U64(k.Hash)
		e.U64(k.Check)
		e.Front(k.ID)
		e.Varint(k.Length)
	},
	Get: func(d *decoder) SetKey {
		return SetKey{Hash: d.U64(), Check: d.U64(), ID: d.Front(), Length: d.Varint()}
	},
	Size:   func(SetKey) int { return 48 },
	Spills: true,
}

func init() { RegisterBatch(Sets) }
