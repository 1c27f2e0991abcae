package elem

// SetKey is a document's exact-duplicate key: two independent 64-bit fingerprints of
// its shingle-hash set, Hash and Check.
type SetKey struct {
	Hash, Check uint64
	ID          string
	Length      int64
}

// SetBatch is a batch of set keys, gathered by set partition.
type SetBatch = Batch[SetKey]

var setCodec = Codec[SetKey]{
	Put: func(e *encoder, k SetKey) {
		e.U64(k.Hash)
		e.U64(k.Check)
		e.Str(k.ID)
		e.Varint(k.Length)
	},
	Get: func(d *decoder) SetKey {
		return SetKey{Hash: d.U64(), Check: d.U64(), ID: d.Str(), Length: d.Varint()}
	},
	Size: func(SetKey) int { return 48 },
}

func init() { RegisterBatch(setCodec) }
