package pipeline

import (
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// ReadRequest asks for one end (Node) of a candidate pair (U, V) from its input line.
type ReadRequest struct {
	Line       int64
	U, V, Node string
}

// SetKey is a document's exact-duplicate key: two independent 64-bit fingerprints of
// its shingle-hash set.
type SetKey struct {
	Hash, Check uint64
	ID          string
	Length      int64
}

// IDLoc is where a document came from.
type IDLoc struct {
	ID   string
	File string
	Line int64
}

// BandEntry puts a document in one LSH bucket. It carries the document's set
// fingerprints so a bucket can skip exact duplicates, which collapse handles.
type BandEntry struct {
	Key      uint64
	Set, Chk uint64
	ID       string
}

// Half is one end of a candidate pair (U, V): the shingle set of Node, which is U or V,
// on its way to the pair's partition.
type Half struct {
	U, V   string
	Node   string
	Hashes []uint64
	Length int64
}

// Edge is a candidate or verified pair. Verified edges carry the pair's similarity
// (exact Jaccard, or the estimate under --verify estimate|none) and both lengths, so
// clustering needs no further join.
type Edge struct {
	U, V       string
	Sim        float64
	ULen, VLen int64
}

// Fate is what the keep policy decided for a clustered document.
type Fate struct {
	ID      string
	Cluster string  // id of the kept member
	Removed bool    //
	Sim     float64 // best similarity to a verified neighbour
	Size    int64   // members in the cluster
}

// Member is a clustered document as the keep policy sees it.
type Member struct {
	ID     string
	Length int64
	Sim    float64
}

func init() {
	for _, t := range []any{ReadRequest{}, SetKey{}, IDLoc{}, BandEntry{}, Half{}, Edge{}, Fate{}, Member{}} {
		beam.RegisterType(reflect.TypeOf(t))
	}
}
