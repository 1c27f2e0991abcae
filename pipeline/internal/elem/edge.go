package elem

import (
	"reflect"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/neardup/neardup/internal/wire"
)

// Edge is a candidate or verified pair. Verified edges carry the pair's similarity
// (exact Jaccard, or the estimate under --verify estimate|none) and both lengths, so
// clustering needs no further join.
type Edge struct {
	U, V       string
	Sim        float64
	ULen, VLen int64
}

// EdgeBatch is a batch of edges.
type EdgeBatch struct{ Items []Edge }

func init() {
	beam.RegisterType(reflect.TypeOf(Edge{}))
	register.Function2x1(AppendEdges)
	wire.RegisterCoder(encodeEdges, decodeEdges)
}

func AppendEdges(a, b EdgeBatch) EdgeBatch { return EdgeBatch{append(a.Items, b.Items...)} }

func encodeEdges(b EdgeBatch) []byte { return wire.EncodeAll(b.Items, 64*len(b.Items), putEdge) }

func decodeEdges(b []byte) (EdgeBatch, error) {
	items, err := wire.DecodeAll(b, getEdge)
	return EdgeBatch{items}, err
}

func putEdge(e *encoder, ed Edge) {
	e.Str(ed.U)
	e.Str(ed.V)
	e.F64(ed.Sim)
	e.Varint(ed.ULen)
	e.Varint(ed.VLen)
}

func getEdge(d *decoder) Edge {
	return Edge{U: d.Str(), V: d.Str(), Sim: d.F64(), ULen: d.Varint(), VLen: d.Varint()}
}

// CompareEdgeIDs orders edges by (U, V), comparing V only when U ties.
func CompareEdgeIDs(a, b Edge) int {
	if c := strings.Compare(a.U, b.U); c != 0 {
		return c
	}
	return strings.Compare(a.V, b.V)
}
