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
	register.DoFn3x0[int, edgeBatch, func(int, halfBatch)](&routeFn{})
	register.DoFn4x1[int, func(*featureBatch) bool, func(*halfBatch) bool, func(int, halfBatch), error](&fetchFn{})
	register.DoFn4x1[context.Context, int, halfBatch, func(int, edgeBatch), error](&checkPairsFn{})
	register.Iter1[featureBatch]()
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

// Verify decides the candidate edges from the LSH buckets. feats holds every document's
// shingle set gathered by id partition, and is read once: each distinct candidate pair
// asks both of its ends' partitions for their sets, and the two halves meet in the
// pair's own partition, where the pair is decided. Only candidates' sets move twice.
// The result is the verified edges, all under key 0.
func Verify(s beam.Scope, feats, candidates beam.PCollection, cfg *Config) beam.PCollection {
	s = s.Scope("Verify")
	requests := beam.ParDo(s, &routeFn{Partitions: cfg.Partitions}, candidates)
	halves := beam.ParDo(s, &fetchFn{Partitions: cfg.Partitions}, beam.CoGroupByKey(s, feats, gather(s, appendHalves, requests)))
	return beam.ParDo(s, &checkPairsFn{
		Scheme: string(cfg.Scheme), Seed: cfg.Seed, NumPerm: cfg.NumPerm, Mode: cfg.Verify,
		Threshold: cfg.Threshold, Floor: cfg.estimateFloor(),
	}, gather(s, appendHalves, halves))
}

// routeFn removes edges found in several bands and asks for both ends' shingle sets.
type routeFn struct{ Partitions int }

func (f *routeFn) ProcessElement(_ int, batch edgeBatch, emit func(int, halfBatch)) {
	edges := batch.Items
	slices.SortFunc(edges, func(a, b Edge) int { return cmp.Or(cmp.Compare(a.U, b.U), cmp.Compare(a.V, b.V)) })
	edges = slices.CompactFunc(edges, func(a, b Edge) bool { return a.U == b.U && a.V == b.V })
	byPart := map[int][]Half{}
	for _, e := range edges {
		for _, node := range []string{e.U, e.V} {
			p := partOfString(node, f.Partitions)
			byPart[p] = append(byPart[p], Half{U: e.U, V: e.V, Node: node})
		}
	}
	for _, p := range sortedKeys(byPart) {
		emit(p, halfBatch{byPart[p]})
	}
}

// fetchFn answers the requests of one id partition with the nodes' shingle sets.
type fetchFn struct{ Partitions int }

func (f *fetchFn) ProcessElement(_ int, featIter func(*featureBatch) bool, reqIter func(*halfBatch) bool, emit func(int, halfBatch)) error {
	var reqs []Half
	var part halfBatch
	for reqIter(&part) {
		reqs = append(reqs, part.Items...)
	}
	if len(reqs) == 0 {
		return nil
	}
	feats := partitionFeatures(featIter)
	byPart := map[int][]Half{}
	for _, r := range reqs {
		ft, ok := lookup(feats, r.Node)
		if !ok {
			return fmt.Errorf("candidate %q has no shingle set (internal error)", r.Node)
		}
		r.Hashes, r.Length = ft.Hashes, ft.Length
		p := partOfString(r.U+"\x00"+r.V, f.Partitions)
		byPart[p] = append(byPart[p], r)
	}
	for _, p := range sortedKeys(byPart) {
		emit(p, halfBatch{byPart[p]})
	}
	return nil
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

// checkPairsFn decides the candidate pairs of one partition, each from its two halves.
// Under --verify exact the estimate only filters: a pair is a duplicate when its exact
// Jaccard reaches the threshold, so the estimate's noise can never remove a document.
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

func (f *checkPairsFn) ProcessElement(ctx context.Context, _ int, batch halfBatch, emit func(int, edgeBatch)) error {
	start := time.Now()
	halves := batch.Items
	slices.SortFunc(halves, func(a, b Half) int {
		return cmp.Or(cmp.Compare(a.U, b.U), cmp.Compare(a.V, b.V), cmp.Compare(a.Node, b.Node))
	})
	var out []Edge
	for i := 0; i < len(halves); i += 2 {
		if i+1 >= len(halves) || halves[i].U != halves[i+1].U || halves[i].V != halves[i+1].V {
			return fmt.Errorf("candidate pair %q/%q arrived incomplete (internal error)", halves[i].U, halves[i].V)
		}
		u, v := halves[i], halves[i+1]
		if u.Node != u.U {
			u, v = v, u
		}
		candidatePairs.Inc(ctx, 1)
		est, err := f.signer.Sign(u.Hashes).Jaccard(f.signer.Sign(v.Hashes))
		if err != nil {
			return fmt.Errorf("compare %q and %q: %w", u.U, u.V, err)
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
			sim = verify.Jaccard(u.Hashes, v.Hashes)
			if sim < f.Threshold {
				falseCandidates.Inc(ctx, 1)
				continue
			}
		}
		verifiedPairs.Inc(ctx, 1)
		out = append(out, Edge{U: u.U, V: u.V, Sim: sim, ULen: u.Length, VLen: v.Length})
	}
	if len(out) > 0 {
		emit(0, edgeBatch{out})
	}
	verifyNanos.Inc(ctx, int64(time.Since(start)))
	progress.stage.Store("verify")
	return nil
}
