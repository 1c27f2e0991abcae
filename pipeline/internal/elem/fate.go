package elem

import (
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// Fate is what the keep policy decided for a clustered document.
type Fate struct {
	ID      string
	Cluster string  // id of the kept member
	Removed bool    //
	Sim     float64 // best similarity to a verified neighbour
	Size    int64   // members in the cluster
}

// FateBatch is a batch of fates, by id partition.
type FateBatch = Batch[Fate]

// Member is a clustered document as the keep policy sees it.
type Member struct {
	ID     string
	Length int64
	Sim    float64
}

// FateSize is about the bytes a fate takes in a batch (Split).
func FateSize(f Fate) int { return len(f.ID) + len(f.Cluster) + 24 }

var fateCodec = Codec[Fate]{
	Put: func(e *encoder, f Fate) {
		e.Str(f.ID)
		e.Str(f.Cluster)
		e.Bool(f.Removed)
		e.F64(f.Sim)
		e.Varint(f.Size)
	},
	Get: func(d *decoder) Fate {
		return Fate{ID: d.Str(), Cluster: d.Str(), Removed: d.Bool(), Sim: d.F64(), Size: d.Varint()}
	},
	Size: func(Fate) int { return 48 },
}

func init() {
	beam.RegisterType(reflect.TypeOf(Member{}))
	RegisterBatch(fateCodec)
}
