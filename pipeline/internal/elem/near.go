package elem

import (
	"cmp"
	"math"
	"slices"

	"github.com/neardup/neardup/internal/wire"
)

// Bounds of SimilaritiesFile: SimilarityBins bins of equal width over [0, 1], and
// NearPairs pairs on each side of the threshold.
const (
	SimilarityBins = 50
	NearPairs      = 20
)

// NearBatch is one verification bundle's share of SimilaritiesFile; merged, the shares
// give the same file whatever the partitioning. Its coder is the wire coder, as every
// batch's: a runner that lifts output.WriteSimilarities' combine (Flink) encodes the
// accumulator with it too.
func init() { wire.RegisterCoder(encodeNear, decodeNear) }

func encodeNear(n NearBatch) []byte {
	e := encoder{B: make([]byte, 0, 16*SimilarityBins+64*(len(n.Lowest)+len(n.Highest)))}
	for _, bins := range [][]int64{n.Verified, n.False} {
		e.Uvarint(uint64(len(bins)))
		for _, v := range bins {
			e.Varint(v)
		}
	}
	for _, edges := range [][]Edge{n.Lowest, n.Highest} {
		e.Uvarint(uint64(len(edges)))
		for _, ed := range edges {
			putEdge(&e, ed)
		}
	}
	return e.B
}

func decodeNear(b []byte) (NearBatch, error) {
	d := decoder{B: b}
	var n NearBatch
	n.Verified = wire.DecodeItems(&d, func(d *decoder) int64 { return d.Varint() })
	n.False = wire.DecodeItems(&d, func(d *decoder) int64 { return d.Varint() })
	n.Lowest = wire.DecodeItems(&d, getEdge)
	n.Highest = wire.DecodeItems(&d, getEdge)
	return n, d.End()
}

type NearBatch struct {
	Verified, False []int64 // pairs per similarity bin
	Lowest          []Edge  // verified pairs, lowest similarity first, at most NearPairs
	Highest         []Edge  // rejected pairs, highest similarity first, at most NearPairs
}

func NewNearBatch() NearBatch {
	return NearBatch{Verified: make([]int64, SimilarityBins), False: make([]int64, SimilarityBins)}
}

func similarityBin(sim float64) int {
	return min(SimilarityBins-1, max(0, int(math.Floor(sim*SimilarityBins+1e-9))))
}

// add records one decided pair; trim must follow before the batch leaves the bundle.
func (n *NearBatch) Add(e Edge, verified bool) {
	if verified {
		n.Verified[similarityBin(e.Sim)]++
		n.Lowest = append(n.Lowest, e)
	} else {
		n.False[similarityBin(e.Sim)]++
		n.Highest = append(n.Highest, e)
	}
}

func (n *NearBatch) Merge(o NearBatch) {
	for i := range o.Verified {
		n.Verified[i] += o.Verified[i]
		n.False[i] += o.False[i]
	}
	n.Lowest = append(n.Lowest, o.Lowest...)
	n.Highest = append(n.Highest, o.Highest...)
}

// trim keeps the NearPairs distinct pairs nearest the threshold on each side, ties broken
// by ids so the choice does not depend on arrival order.
func (n *NearBatch) Trim() {
	slices.SortFunc(n.Lowest, func(a, b Edge) int { return cmp.Or(cmp.Compare(a.Sim, b.Sim), CompareEdgeIDs(a, b)) })
	slices.SortFunc(n.Highest, func(a, b Edge) int { return cmp.Or(cmp.Compare(b.Sim, a.Sim), CompareEdgeIDs(a, b)) })
	// A pair compared twice (in a small bucket of one band and a large bucket of
	// another) is listed once.
	same := func(a, b Edge) bool { return a.U == b.U && a.V == b.V }
	n.Lowest, n.Highest = slices.CompactFunc(n.Lowest, same), slices.CompactFunc(n.Highest, same)
	n.Lowest = slices.Clip(n.Lowest[:min(len(n.Lowest), NearPairs)])
	n.Highest = slices.Clip(n.Highest[:min(len(n.Highest), NearPairs)])
}
