package elem

import "strings"

// Edge is a candidate or verified pair. Verified edges carry the pair's similarity
// (exact Jaccard, or the estimate under --verify estimate|none) and both lengths, so
// clustering needs no further join.
type Edge struct {
	U, V       string
	Sim        float64
	ULen, VLen int64
}

// EdgeBatch is a batch of edges, or (Spilled) references to local files that hold
// them, each record a run of edges (Codec.Append): the candidate edges of a large
// corpus, each found once per band it shares, outweigh every other shuffle but the
// band entries.
type EdgeBatch = Batch[Edge]

// Edges codes edges, for the runner and for spilled runs alike.
var Edges = Codec[Edge]{Put: putEdge, Get: getEdge, Size: func(Edge) int { return 64 }, Spills: true}

func init() { RegisterBatch(Edges) }

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
