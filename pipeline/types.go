package pipeline

import (
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// Feature is a document reduced to what dedup needs: its shingle-hash set (sorted,
// distinct) and its text length for the "longest" keep policy.
type Feature struct {
	ID     string
	Hashes []uint64
	Length int64
}

// Signed is a representative document ready for candidate checks: signature and
// shingle-hash set, joined to candidate edges by id.
type Signed struct {
	ID     string
	Sig    []uint64
	Hashes []uint64
}

// HalfEdge is a candidate pair after the first join: U's data travelling to V.
type HalfEdge struct {
	U      string
	Sig    []uint64
	Hashes []uint64
}

// Edge is a verified duplicate pair with its similarity (exact Jaccard, or the estimate
// under --verify estimate|none).
type Edge struct {
	U, V string
	Sim  float64
}

// Loc is where a document came from.
type Loc struct {
	File string
	Line int64
}

// Fate is what the keep policy decided for a clustered document.
type Fate struct {
	Cluster string // id of the kept member
	Removed bool
}

// Member is a clustered document with its length, for the "longest" keep policy.
type Member struct {
	ID     string
	Length int64
}

func init() {
	for _, t := range []any{Feature{}, Signed{}, HalfEdge{}, Edge{}, Loc{}, Fate{}, Member{}} {
		beam.RegisterType(reflect.TypeOf(t))
	}
}
