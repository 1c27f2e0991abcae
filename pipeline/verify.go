package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/filter"

	"github.com/neardup/neardup/transforms/minhash"
	"github.com/neardup/neardup/transforms/verify"
)

func init() {
	register.Function2x1(edgeKey)
	register.Function2x0(splitEdgeKey)
	register.Function4x1(sendHalfEdges)
	register.DoFn5x1[context.Context, string, func(*Signed) bool, func(*HalfEdge) bool, func(Edge)](&checkPairsFn{})
	register.Iter1[Signed]()
	register.Iter1[HalfEdge]()
	register.Iter1[string]()
	register.Emitter1[string]()
	register.Emitter2[string, HalfEdge]()
}

var (
	candidatePairs  = beam.NewCounter(metricsNS, "candidate_pairs")
	estimateDropped = beam.NewCounter(metricsNS, "estimate_filtered")
	falseCandidates = beam.NewCounter(metricsNS, "false_candidates")
	verifiedPairs   = beam.NewCounter(metricsNS, "verified_pairs")
	verifyNanos     = beam.NewCounter(metricsNS, "verify_nanos")
)

// Verify turns star edges from the LSH buckets into verified duplicate edges: it removes
// edges found in several bands, then joins each edge with both endpoints' signatures and
// shingle-hash sets (by U, then by V) and decides on the pair.
func Verify(s beam.Scope, candidates, signed beam.PCollection, cfg *Config) beam.PCollection {
	s = s.Scope("Verify")
	distinct := filter.Distinct(s, beam.ParDo(s, edgeKey, candidates))
	byU := beam.ParDo(s, splitEdgeKey, distinct)
	half := beam.ParDo(s, sendHalfEdges, beam.CoGroupByKey(s, signed, byU))
	return beam.ParDo(s, &checkPairsFn{
		Scheme: string(cfg.Scheme), Seed: cfg.Seed, Mode: cfg.Verify,
		Threshold: cfg.Threshold, Floor: cfg.estimateFloor(),
	}, beam.CoGroupByKey(s, signed, half))
}

// edgeKey makes an edge one comparable value so filter.Distinct can combine duplicates
// before the shuffle. U's length prefixes it, since ids may contain any character.
func edgeKey(u, v string) string { return strconv.Itoa(len(u)) + ":" + u + v }

func splitEdgeKey(k string, emit func(string, string)) {
	n, rest, _ := strings.Cut(k, ":")
	l, _ := strconv.Atoi(n)
	emit(rest[:l], rest[l:])
}

// sendHalfEdges forwards U's signature and shingle set to each of its candidates.
func sendHalfEdges(u string, signed func(*Signed) bool, vs func(*string) bool, emit func(string, HalfEdge)) error {
	var sg Signed
	if !signed(&sg) {
		var v string
		if vs(&v) {
			return fmt.Errorf("candidate %q has no signature (internal error)", u)
		}
		return nil
	}
	var v string
	for vs(&v) {
		emit(v, HalfEdge{U: u, Sig: sg.Sig, Hashes: sg.Hashes})
	}
	return nil
}

// checkPairsFn decides every candidate pair that reaches V. Under --verify exact the
// estimate only filters: a pair is a duplicate when its exact Jaccard reaches the
// threshold, so the estimate's noise can never remove a document.
type checkPairsFn struct {
	Scheme    string
	Seed      int64
	Mode      string
	Threshold float64
	Floor     float64
}

func (f *checkPairsFn) ProcessElement(ctx context.Context, v string, signed func(*Signed) bool, halves func(*HalfEdge) bool, emit func(Edge)) error {
	var sv Signed
	if !signed(&sv) {
		var h HalfEdge
		if halves(&h) {
			return fmt.Errorf("candidate %q has no signature (internal error)", v)
		}
		return nil
	}
	start := time.Now()
	defer func() { verifyNanos.Inc(ctx, int64(time.Since(start))) }()
	mv := &minhash.MinHash{Scheme: minhash.Scheme(f.Scheme), Seed: f.Seed, Values: sv.Sig}
	var h HalfEdge
	for halves(&h) {
		candidatePairs.Inc(ctx, 1)
		est, err := (&minhash.MinHash{Scheme: mv.Scheme, Seed: f.Seed, Values: h.Sig}).Jaccard(mv)
		if err != nil {
			return fmt.Errorf("compare %q and %q: %w", h.U, v, err)
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
			sim = verify.Jaccard(h.Hashes, sv.Hashes)
			if sim < f.Threshold {
				falseCandidates.Inc(ctx, 1)
				continue
			}
		}
		verifiedPairs.Inc(ctx, 1)
		emit(orderedEdge(h.U, v, sim))
	}
	progress.stage.Store("verify")
	return nil
}
