package pipeline

import (
	"cmp"
	"context"
	"math"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/internal/once"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/report"
)

// SimilaritiesFile holds what verification saw near the threshold: the similarity
// histograms of the verified pairs and of the false candidates, and the pairs closest to
// the threshold on either side. It is what report.html needs beyond the other outputs,
// and is small whatever the corpus size.
const SimilaritiesFile = report.SimilaritiesFile

// Bounds of SimilaritiesFile: SimilarityBins bins of equal width over [0, 1], and
// NearPairs pairs on each side of the threshold.
const (
	SimilarityBins = 50
	NearPairs      = 20
)

func init() {
	beam.RegisterType(reflect.TypeOf(nearBatch{}))
	register.DoFn5x1[context.Context, int, func(*[]byte) bool, func(*nearBatch) bool, func(int, string), error](&writeSimilaritiesFn{})
	register.Emitter2[int, string]()
	register.Emitter1[nearBatch]()
	once.Register[nearBatch]()
}

// nearBatch is one verification bundle's share of SimilaritiesFile; merged, the shares
// give the same file whatever the partitioning.
type nearBatch struct {
	Verified, False []int64 // pairs per similarity bin
	Lowest          []Edge  // verified pairs, lowest similarity first, at most NearPairs
	Highest         []Edge  // rejected pairs, highest similarity first, at most NearPairs
}

func newNearBatch() nearBatch {
	return nearBatch{Verified: make([]int64, SimilarityBins), False: make([]int64, SimilarityBins)}
}

func similarityBin(sim float64) int {
	return min(SimilarityBins-1, max(0, int(math.Floor(sim*SimilarityBins+1e-9))))
}

// add records one decided pair; trim must follow before the batch leaves the bundle.
func (n *nearBatch) add(e Edge, verified bool) {
	if verified {
		n.Verified[similarityBin(e.Sim)]++
		n.Lowest = append(n.Lowest, e)
	} else {
		n.False[similarityBin(e.Sim)]++
		n.Highest = append(n.Highest, e)
	}
}

func (n *nearBatch) merge(o nearBatch) {
	for i := range o.Verified {
		n.Verified[i] += o.Verified[i]
		n.False[i] += o.False[i]
	}
	n.Lowest = append(n.Lowest, o.Lowest...)
	n.Highest = append(n.Highest, o.Highest...)
}

// trim keeps the NearPairs distinct pairs nearest the threshold on each side, ties broken
// by ids so the choice does not depend on arrival order.
func (n *nearBatch) trim() {
	slices.SortFunc(n.Lowest, func(a, b Edge) int { return cmp.Or(cmp.Compare(a.Sim, b.Sim), compareEdgeIDs(a, b)) })
	slices.SortFunc(n.Highest, func(a, b Edge) int { return cmp.Or(cmp.Compare(b.Sim, a.Sim), compareEdgeIDs(a, b)) })
	// A pair compared twice (in a small bucket of one band and a large bucket of
	// another) is listed once.
	same := func(a, b Edge) bool { return a.U == b.U && a.V == b.V }
	n.Lowest, n.Highest = slices.CompactFunc(n.Lowest, same), slices.CompactFunc(n.Highest, same)
	n.Lowest = slices.Clip(n.Lowest[:min(len(n.Lowest), NearPairs)])
	n.Highest = slices.Clip(n.Highest[:min(len(n.Highest), NearPairs)])
}

// writeSimilarities merges the batches of PCollection<nearBatch> into SimilaritiesFile
// in dir. It runs once even when there were no candidates, so the file always exists. It
// returns the ids of the pairs the file lists, whose texts report.html shows, keyed by
// their id partition: PCollection<KV<int, string>>.
func writeSimilarities(s beam.Scope, batches beam.PCollection, dir string, cfg *Config) beam.PCollection {
	s = s.Scope("WriteSimilarities")
	basis := "exact"
	if cfg.Verify != VerifyExact {
		basis = "estimate"
	}
	return beam.ParDo(s, &writeSimilaritiesFn{Dir: dir, Basis: basis, Partitions: cfg.Partitions}, once.Group[nearBatch](s, batches))
}

type writeSimilaritiesFn struct {
	Dir, Basis string
	Partitions int
}

func (f *writeSimilaritiesFn) ProcessElement(ctx context.Context, _ int, _ func(*[]byte) bool, batches func(*nearBatch) bool, emitShown func(int, string)) error {
	all := newNearBatch()
	var b nearBatch
	for batches(&b) {
		all.merge(b)
		all.trim()
	}
	out := report.Similarities{Basis: f.Basis, BinWidth: 1.0 / SimilarityBins, Verified: all.Verified, FalseCandidates: all.False,
		LowestVerified: nearPairs(all.Lowest), HighestRejected: nearPairs(all.Highest)}
	if err := writeJSON(ctx, files.Join(f.Dir, SimilaritiesFile), out); err != nil {
		return err
	}
	for _, e := range slices.Concat(all.Lowest, all.Highest) {
		emitShown(partOfString(e.U, f.Partitions), e.U)
		emitShown(partOfString(e.V, f.Partitions), e.V)
	}
	return nil
}

func nearPairs(es []Edge) []report.NearPair {
	out := make([]report.NearPair, len(es))
	for i, e := range es {
		out[i] = report.NearPair{A: externalID(e.U), B: externalID(e.V), Similarity: e.Sim}
	}
	return out
}
