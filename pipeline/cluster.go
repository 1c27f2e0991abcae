package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/connectedcomponents"
	"github.com/neardup/neardup/record"
)

func init() {
	register.Function2x0(edgeEndpoints)
	register.Function2x0(edgeSims)
	register.Function2x1(maxFloat)
	register.Function2x1(longerMember)
	register.Function3x0(memberByLabel)
	register.DoFn1x1[int64, error](&checkConvergedFn{})
	register.DoFn6x1[context.Context, string, func(*string) bool, func(*string) bool, func(string, Fate), func(string, string), error](&clusterFn{})
	register.Function3x0(featureLength)
	register.Function3x0(labelIsKept)
	register.Function4x0(labelledLength)
	register.Function3x0(memberID)
	register.Function6x1(decide)
	register.Emitter2[string, float64]()
	register.Emitter2[string, Member]()
	register.Emitter2[string, Fate]()
	register.Emitter1[record.Decision]()
	register.Iter1[Fate]()
	register.Iter1[float64]()
	register.Iter1[int64]()
}

var (
	clustersTotal = beam.NewCounter(metricsNS, "clusters")
	keptTotal     = beam.NewCounter(metricsNS, "kept")
	removedTotal  = beam.NewCounter(metricsNS, "removed")
	largestGauge  = beam.NewDistribution(metricsNS, "cluster_size")
)

// Cluster labels the documents joined by verified edges with connected components and
// applies the keep policy. It returns the fate of every clustered document, the best
// similarity of each to a verified neighbour, and one clusters.jsonl line per cluster,
// keyed by cluster id.
func Cluster(s beam.Scope, edges, features beam.PCollection, cfg *Config) (fates, sims, lines beam.PCollection) {
	s = s.Scope("Cluster")
	labels, unconverged := connectedcomponents.Label(s, beam.ParDo(s, edgeEndpoints, edges), connectedcomponents.Options{Rounds: cfg.CCRounds})
	beam.ParDo0(s, &checkConvergedFn{Rounds: cfg.CCRounds}, unconverged)
	sims = beam.CombinePerKey(s, maxFloat, beam.ParDo(s, edgeSims, edges))

	members := beam.ParDo(s, memberByLabel, labels)
	var kept beam.PCollection
	if cfg.Keep == KeepLongest {
		lengths := beam.ParDo(s, featureLength, features)
		withLen := beam.ParDo(s, labelledLength, beam.CoGroupByKey(s, labels, lengths))
		kept = beam.ParDo(s, memberID, beam.CombinePerKey(s, longerMember, withLen))
	} else {
		kept = beam.ParDo(s, labelIsKept, labels)
	}
	fates, lines = beam.ParDo2(s, &clusterFn{}, beam.CoGroupByKey(s, members, kept))
	return fates, sims, lines
}

func edgeEndpoints(e Edge, emit func(string, string)) { emit(e.U, e.V) }

func edgeSims(e Edge, emit func(string, float64)) {
	emit(e.U, e.Sim)
	emit(e.V, e.Sim)
}

func maxFloat(a, b float64) float64 { return math.Max(a, b) }

func memberByLabel(node, label string, emit func(string, string)) { emit(label, node) }

// labelIsKept emits nothing: under smallest-id the label itself is kept, and an empty
// PCollection of the right type keeps one clusterFn for both policies.
func labelIsKept(string, string, func(string, string)) {}

func labelledLength(node string, labels func(*string) bool, lengths func(*int64) bool, emit func(string, Member)) {
	var label string
	var n int64
	if labels(&label) {
		lengths(&n)
		emit(label, Member{ID: node, Length: n})
	}
}

func memberID(label string, m Member, emit func(string, string)) { emit(label, m.ID) }

func featureLength(_ uint64, f Feature, emit func(string, int64)) { emit(f.ID, f.Length) }

// longerMember prefers the longer text and, between equals, the smaller id, so the
// choice is the same whatever order the combiner sees members in.
func longerMember(a, b Member) Member {
	if a.Length > b.Length || (a.Length == b.Length && a.ID < b.ID) {
		return a
	}
	return b
}

// checkConverged fails the run when connected components did not converge: the labels
// would be wrong and nothing may be written from them.
type checkConvergedFn struct{ Rounds int }

func (f *checkConvergedFn) ProcessElement(n int64) error {
	if n == 0 {
		return nil
	}
	return fmt.Errorf("connected components did not converge in %d rounds: %d nodes unconverged; rerun with a larger --cc-rounds (e.g. %d)", f.Rounds, n, 2*f.Rounds)
}

// clusterFn writes one cluster: each member's fate and the clusters.jsonl line. The
// member ids are sorted for the line, so a cluster's ids are held in memory here; a
// cluster is small next to the corpus even when it is the corpus' largest.
type clusterFn struct{}

type clusterLine struct {
	Cluster string   `json:"cluster"`
	Size    int      `json:"size"`
	Kept    string   `json:"kept"`
	Members []string `json:"members"`
}

func (clusterFn) ProcessElement(ctx context.Context, label string, nodes func(*string) bool, kept func(*string) bool, emitFate func(string, Fate), emitLine func(string, string)) error {
	keep := label
	var k string
	if kept(&k) {
		keep = k
	}
	var ids []string
	var id string
	for nodes(&id) {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		emitFate(id, Fate{Cluster: keep, Removed: id != keep})
	}
	clustersTotal.Inc(ctx, 1)
	largestGauge.Update(ctx, int64(len(ids)))
	b, err := json.Marshal(clusterLine{Cluster: label, Size: len(ids), Kept: keep, Members: ids})
	if err != nil {
		return fmt.Errorf("cluster %q: %w", label, err)
	}
	emitLine(label, string(b))
	return nil
}

// decide gives every document its Decision. Documents in no cluster are kept.
func decide(ctx context.Context, id string, locs func(*Loc) bool, fates func(*Fate) bool, sims func(*float64) bool, emit func(record.Decision)) error {
	var loc Loc
	if !locs(&loc) {
		return fmt.Errorf("document %q has no input location (internal error)", id)
	}
	d := record.Decision{File: loc.File, Line: loc.Line, ID: id, Cluster: id}
	var f Fate
	if fates(&f) {
		d.Cluster, d.Removed = f.Cluster, f.Removed
	}
	var sim float64
	if d.Removed && sims(&sim) {
		d.Similarity = sim
	}
	if d.Removed {
		removedTotal.Inc(ctx, 1)
	} else {
		keptTotal.Inc(ctx, 1)
	}
	emit(d)
	return nil
}
