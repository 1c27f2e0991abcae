package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/minhash"
	"github.com/neardup/neardup/transforms/verify"
)

func init() {
	register.DoFn4x1[int, func(*featureBatch) bool, func(*edgeBatch) bool, func(int, halfBatch), error](&sendHalfEdgesFn{})
	register.DoFn5x1[context.Context, int, func(*featureBatch) bool, func(*halfBatch) bool, func(int, edgeBatch), error](&checkPairsFn{})
	register.Iter1[featureBatch]()
	register.Iter1[edgeBatch]()
	register.Iter1[halfBatch]()
	register.Emitter2[int, halfBatch]()
}

var (
	candidatePairs  = beam.NewCounter(metricsNS, "candidate_pairs")
	estimateDropped = beam.NewCounter(metricsNS, "estimate_filtered")
	falseCandidates = beam.NewCounter(metricsNS, "false_candidates")
	verifiedPairs   = beam.NewCounter(metricsNS, "verified_pairs")
	verifyNanos     = beam.NewCounter(metricsNS, "verify_nanos")
)

// Verify decides the candidate edges from the LSH buckets. reps holds the representatives'
// features gathered by id partition; candidates the star edges gathered by U's partition.
// Each edge meets U's shingle set, travels to V's partition and is decided there; the
// result is the verified edges, all under key 0.
func Verify(s beam.Scope, reps, candidates beam.PCollection, cfg *Config) beam.PCollection {
	s = s.Scope("Verify")
	half := beam.ParDo(s, &sendHalfEdgesFn{Partitions: cfg.Partitions}, beam.CoGroupByKey(s, reps, candidates))
	return beam.ParDo(s, &checkPairsFn{
		Scheme: string(cfg.Scheme), Seed: cfg.Seed, NumPerm: cfg.NumPerm, Mode: cfg.Verify,
		Threshold: cfg.Threshold, Floor: cfg.estimateFloor(),
	}, beam.CoGroupByKey(s, reps, gather(s, appendHalfEdges, half)))
}

// partitionFeatures reads one partition's features (a single gathered list, or several
// if the runner did not combine them all) sorted by id for lookups.
func partitionFeatures(iter func(*featureBatch) bool) []Feature {
	var all []Feature
	var part featureBatch
	for iter(&part) {
		all = append(all, part.Items...)
	}
	slices.SortFunc(all, func(a, b Feature) int { return cmp.Compare(a.ID, b.ID) })
	return all
}

func lookup(feats []Feature, id string) (Feature, bool) {
	i, ok := slices.BinarySearchFunc(feats, id, func(f Feature, id string) int { return cmp.Compare(f.ID, id) })
	if !ok {
		return Feature{}, false
	}
	return feats[i], true
}

// sendHalfEdgesFn removes edges found in several bands and forwards U's shingle set to
// V's partition.
type sendHalfEdgesFn struct{ Partitions int }

func (f *sendHalfEdgesFn) ProcessElement(_ int, featIter func(*featureBatch) bool, edgeIter func(*edgeBatch) bool, emit func(int, halfBatch)) error {
	var edges []Edge
	var part edgeBatch
	for edgeIter(&part) {
		edges = append(edges, part.Items...)
	}
	if len(edges) == 0 {
		return nil
	}
	feats := partitionFeatures(featIter)
	slices.SortFunc(edges, func(a, b Edge) int { return cmp.Or(cmp.Compare(a.U, b.U), cmp.Compare(a.V, b.V)) })
	edges = slices.CompactFunc(edges, func(a, b Edge) bool { return a.U == b.U && a.V == b.V })
	byPart := map[int][]HalfEdge{}
	for _, e := range edges {
		u, ok := lookup(feats, e.U)
		if !ok {
			return fmt.Errorf("candidate %q has no features (internal error)", e.U)
		}
		p := partOfString(e.V, f.Partitions)
		byPart[p] = append(byPart[p], HalfEdge{U: e.U, V: e.V, Hashes: u.Hashes, ULength: u.Length})
	}
	for _, p := range sortedKeys(byPart) {
		emit(p, halfBatch{byPart[p]})
	}
	return nil
}

// checkPairsFn decides every candidate pair whose V is in the partition. Under
// --verify exact the estimate only filters: a pair is a duplicate when its exact Jaccard
// reaches the threshold, so the estimate's noise can never remove a document.
// Signatures are recomputed here rather than shuffled: signing a document costs less
// than moving its signature.
type checkPairsFn struct {
	Scheme    string
	Seed      int64
	NumPerm   int
	Mode      string
	Threshold float64
	Floor     float64

	signer *minhash.Signer
}

func (f *checkPairsFn) Setup() error {
	s, err := minhash.NewSigner(minhash.Scheme(f.Scheme), f.Seed, f.NumPerm)
	f.signer = s
	return err
}

func (f *checkPairsFn) ProcessElement(ctx context.Context, _ int, featIter func(*featureBatch) bool, halfIter func(*halfBatch) bool, emit func(int, edgeBatch)) error {
	var halves []HalfEdge
	var part halfBatch
	for halfIter(&part) {
		halves = append(halves, part.Items...)
	}
	if len(halves) == 0 {
		return nil
	}
	start := time.Now()
	defer func() { verifyNanos.Inc(ctx, int64(time.Since(start))) }()
	feats := partitionFeatures(featIter)
	slices.SortFunc(halves, func(a, b HalfEdge) int { return cmp.Or(cmp.Compare(a.V, b.V), cmp.Compare(a.U, b.U)) })
	var out []Edge
	var vSig *minhash.MinHash
	for i, h := range halves {
		v, ok := lookup(feats, h.V)
		if !ok {
			return fmt.Errorf("candidate %q has no features (internal error)", h.V)
		}
		if i == 0 || halves[i-1].V != h.V {
			vSig = f.signer.Sign(v.Hashes)
		}
		candidatePairs.Inc(ctx, 1)
		est, err := f.signer.Sign(h.Hashes).Jaccard(vSig)
		if err != nil {
			return fmt.Errorf("compare %q and %q: %w", h.U, h.V, err)
		}
		sim := est
		switch f.Mode {
		case VerifyNone:
		case VerifyEstimate:
			if est < f.Threshold {
				falseCandidates.Inc(ctx, 1)
				continue
			}
		default:
			if est < f.Floor {
				estimateDropped.Inc(ctx, 1)
				falseCandidates.Inc(ctx, 1)
				continue
			}
			sim = verify.Jaccard(h.Hashes, v.Hashes)
			if sim < f.Threshold {
				falseCandidates.Inc(ctx, 1)
				continue
			}
		}
		verifiedPairs.Inc(ctx, 1)
		out = append(out, Edge{U: h.U, V: h.V, Sim: sim, ULen: h.ULength, VLen: v.Length})
	}
	if len(out) > 0 {
		emit(0, edgeBatch{out})
	}
	progress.stage.Store("verify")
	return nil
}
