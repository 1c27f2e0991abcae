package elem

import (
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/neardup/neardup/internal/wire"
)

// SetKey is a document's exact-duplicate key: two independent 64-bit fingerprints of
// its shingle-hash set, Hash and Check.
type SetKey struct {
	Hash, Check uint64
	ID          string
	Length      int64
}

// SetBatch is a batch of set keys, gathered by set partition.
type SetBatch struct{ Items []SetKey }

func init() {
	beam.RegisterType(reflect.TypeOf(SetKey{}))
	register.Function2x1(AppendSets)
	wire.RegisterCoder(encodeSets, decodeSets)
}

func AppendSets(a, b SetBatch) SetBatch { return SetBatch{append(a.Items, b.Items...)} }

func encodeSets(b SetBatch) []byte {
	return wire.EncodeAll(b.Items, 48*len(b.Items), func(e *encoder, k SetKey) {
		e.U64(k.Hash)
		e.U64(k.Check)
		e.Str(k.ID)
		e.Varint(k.Length)
	})
}

func decodeSets(b []byte) (SetBatch, error) {
	items, err := wire.DecodeAll(b, func(d *decoder) SetKey {
		return SetKey{Hash: d.U64(), Check: d.U64(), ID: d.Str(), Length: d.Varint()}
	})
	return SetBatch{items}, err
}
