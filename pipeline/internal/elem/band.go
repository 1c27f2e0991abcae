package elem

import (
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/neardup/neardup/internal/wire"
)

// BandEntry puts a document in one LSH bucket, Key. It carries the document's set
// fingerprints (SetKey's Hash and Check) so a bucket can skip exact duplicates, which
// collapse handles.
type BandEntry struct {
	Key         uint64
	Hash, Check uint64
	ID          string
}

// BandBatch holds band entries, or (Spilled) references to local files that hold them
// (internal/spill), each record a run of entries (AppendBand, AppendRun).
type BandBatch struct {
	Items   []BandEntry
	Spilled []string
}

func init() {
	beam.RegisterType(reflect.TypeOf(BandEntry{}))
	wire.RegisterCoder(encodeBands, decodeBands)
}

func encodeBands(b BandBatch) []byte {
	return EncodeSpillable(b.Items, b.Spilled, 48*len(b.Items), putBand)
}

func decodeBands(b []byte) (BandBatch, error) {
	items, refs, err := decodeSpillableFrom(&decoder{B: b, Whole: string(b)}, GetBand)
	return BandBatch{items, refs}, err
}

func putBand(e *encoder, be BandEntry) {
	e.U64(be.Key)
	e.U64(be.Hash)
	e.U64(be.Check)
	e.Str(be.ID)
}

func GetBand(d *decoder) BandEntry {
	return BandEntry{Key: d.U64(), Hash: d.U64(), Check: d.U64(), ID: d.Str()}
}

// AppendBand appends one band entry to a spilled run of them (features.FeaturizeFn).
func AppendBand(b []byte, be BandEntry) []byte {
	e := encoder{B: b}
	putBand(&e, be)
	return e.B
}
