package output

import (
	"context"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/internal/once"
	"github.com/neardup/neardup/internal/onekey"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/report"
)

// SimilaritiesFile holds what verification saw near the threshold: the similarity
// histograms of the verified pairs and of the false candidates, and the pairs closest to
// the threshold on either side. It is what report.html needs beyond the other outputs,
// and is small whatever the corpus size.
const SimilaritiesFile = report.SimilaritiesFile

func init() {
	register.DoFn5x1[context.Context, int, func(*[]byte) bool, func(*elem.NearBatch) bool, func(int, string), error](&writeSimilaritiesFn{})
	register.Emitter2[int, string]()
	register.Emitter1[elem.NearBatch]()
	once.Register[elem.NearBatch]()
	register.Function1x2(keyNear)
	register.Function2x1(mergeNear)
	register.Function2x1(nearOf)
	onekey.Producer(keyNear, 0)
}

// WriteSimilarities merges the batches of PCollection<NearBatch> into SimilaritiesFile
// in dir, saying the similarities are basis ("exact" or "estimate"). It runs once even
// when there were no candidates, so the file always exists. It
// returns the ids of the pairs the file lists, whose texts report.html shows, keyed by
// their id partition: PCollection<KV<int, string>>.
func WriteSimilarities(s beam.Scope, batches beam.PCollection, dir, basis string, partitions int) beam.PCollection {
	s = s.Scope("output.WriteSimilarities")
	merged := beam.ParDo(s, nearOf, beam.CombinePerKey(s, mergeNear, beam.ParDo(s, keyNear, batches)))
	return beam.ParDo(s, &writeSimilaritiesFn{Dir: dir, Basis: basis, Partitions: partitions}, once.Group[elem.NearBatch](s, merged))
}

// keyNear puts every batch under one key, for mergeNear: the runner merges each
// bundle's batches before the shuffle, and the merged batch stays small.
func keyNear(b elem.NearBatch) (int, elem.NearBatch) { return 0, b }

// mergeNear merges two batches and keeps what SimilaritiesFile shows: bin counts and
// the NearPairs pairs on each side of the threshold, whatever the number of pairs.
func mergeNear(a, b elem.NearBatch) elem.NearBatch {
	all := elem.NewNearBatch()
	all.Merge(a)
	all.Merge(b)
	all.Trim()
	return all
}

func nearOf(_ int, b elem.NearBatch) elem.NearBatch { return b }

type writeSimilaritiesFn struct {
	Dir, Basis string
	Partitions int
}

func (f *writeSimilaritiesFn) ProcessElement(ctx context.Context, _ int, _ func(*[]byte) bool, batches func(*elem.NearBatch) bool, emitShown func(int, string)) error {
	all := elem.NewNearBatch()
	var b elem.NearBatch
	for batches(&b) {
		all.Merge(b)
		all.Trim()
	}
	out := report.Similarities{Basis: f.Basis, BinWidth: 1.0 / elem.SimilarityBins, Verified: all.Verified, FalseCandidates: all.False,
		LowestVerified: nearPairs(all.Lowest), HighestRejected: nearPairs(all.Highest)}
	if err := WriteJSON(ctx, files.Join(f.Dir, SimilaritiesFile), out); err != nil {
		return err
	}
	for _, e := range slices.Concat(all.Lowest, all.Highest) {
		emitShown(elem.PartOfString(e.U, f.Partitions), e.U)
		emitShown(elem.PartOfString(e.V, f.Partitions), e.V)
	}
	return nil
}

func nearPairs(es []elem.Edge) []report.NearPair {
	out := make([]report.NearPair, len(es))
	for i, e := range es {
		out[i] = report.NearPair{A: elem.ExternalID(e.U), B: elem.ExternalID(e.V), Similarity: e.Sim}
	}
	return out
}
