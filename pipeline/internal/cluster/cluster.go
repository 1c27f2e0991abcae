// Package cluster is the clustering stage of the dedup pipeline: connected components
// over the verified edges, then the keep policy (smallest id, longest) per cluster. It
// imports elem and connectedcomponents, no other stage.
package cluster

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/connectedcomponents"
	"github.com/neardup/neardup/internal/batch"
	"github.com/neardup/neardup/internal/onekey"
	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/internal/unionfind"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// Connected-components modes.
const (
	Local       = "local"       // union-find over all verified edges in one worker
	Distributed = "distributed" // large-star/small-star rounds, for edge sets no worker can hold
)

// Keep policies: which member of a cluster survives. A field policy
// (KeepFieldPrefix+NAME:max|min) is applied by package keep once Cluster has labelled
// the members.
const (
	KeepSmallestID  = "smallest-id"
	KeepLongest     = "longest"
	KeepFieldPrefix = "field:"
)

// IsKeepField reports whether keep names a field policy (valid or not).
func IsKeepField(keep string) bool { return strings.HasPrefix(keep, KeepFieldPrefix) }

// Options are the clustering stage's settings.
type Options struct {
	CC         string // Local or Distributed
	Rounds     int    // rounds of Distributed
	Partitions int
	Keep       string // a keep policy
}

func init() {
	register.DoFn5x1[int, func(*elem.EdgeBatch) bool, func(int, elem.FateBatch), func(elem.LineBatch), func(tally.Count), error](&clusterLocalFn{})
	register.Function3x0(localEdges)
	onekey.Producer(localEdges, 0)
	register.Function2x2(edgePairs)
	register.DoFn3x0[int, elem.EdgeBatch, func(int, elem.EdgeBatch)](&edgesByNodeFn{})
	register.DoFn4x1[int, func(*connectedcomponents.Pairs) bool, func(*elem.EdgeBatch) bool, func(int, elem.EdgeBatch), error](&labelMembersFn{})
	register.DoFn5x1[int, elem.EdgeBatch, func(int, elem.FateBatch), func(elem.LineBatch), func(tally.Count), error](&clusterPartFn{})
	register.DoFn1x1[int64, error](&checkConvergedFn{})
	register.Emitter2[int, elem.FateBatch]()
	register.Emitter2[int, elem.EdgeBatch]()
	register.Iter1[connectedcomponents.Pairs]()
	register.Iter1[elem.EdgeBatch]()
}

// Names of the cluster counts: the number of clusters, the largest cluster's size, and
// SizeBucketCount(i) for the clusters in histogram bucket i, which stats.json shows.
const (
	ClustersCount       = "clusters"
	LargestClusterCount = "largest_cluster"
	sizeBucketPrefix    = "cluster_size_bucket_"
)

// SizeBucketCount names the count of clusters in histogram bucket i (see sizeBucket).
func SizeBucketCount(i int) string { return fmt.Sprintf("%s%02d", sizeBucketPrefix, i) }

// ParseSizeBucketCount is the inverse of SizeBucketCount.
func ParseSizeBucketCount(name string) (int, bool) {
	if !strings.HasPrefix(name, sizeBucketPrefix) {
		return 0, false
	}
	i, err := strconv.Atoi(strings.TrimPrefix(name, sizeBucketPrefix))
	return i, err == nil
}

// sizeBucket is the histogram bucket of a cluster size n ≥ 2: bucket i holds sizes
// 2^i+1 … 2^(i+1), so 2, 3–4, 5–8, 9–16, …
func sizeBucket(n int) int { return bits.Len(uint(n-1)) - 1 }

// SizeBucketName labels bucket i as stats.json shows it.
func SizeBucketName(i int) string {
	lo, hi := 1<<i+1, 1<<(i+1)
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// Cluster labels the documents joined by verified edges (all under key 0) with connected
// components and applies the keep policy. It returns each clustered document's fate,
// by id partition in batches of at most elem.ShuffleBytes (they meet the locations in a
// CoGroupByKey, which gathers them), the clusters.jsonl lines, one per cluster, in
// batches, sorted by cluster id when written (PCollection<LineBatch>), and the cluster counts
// (PCollection<tally.Count>, see ClustersCount).
func Cluster(s beam.Scope, edges beam.PCollection, o Options) (fates, lines, counts beam.PCollection) {
	s = s.Scope("cluster.Cluster")
	if o.CC == Distributed {
		return clusterDistributed(s, edges, o)
	}
	grouped := beam.GroupByKey(s, beam.ParDo(s, localEdges, edges))
	fates, lines, counts = beam.ParDo3(s, &clusterLocalFn{Partitions: o.Partitions, Keep: o.Keep}, grouped)
	return fates, lines, counts
}

// localEdges puts every edge under the one key of --cc local, in batches of at most
// elem.ShuffleBytes: the runner gathers the group batch by batch and clusterLocalFn
// streams it, so no element grows with the edges (a producer's batch may: all the exact
// duplicates of one set).
func localEdges(_ int, b elem.EdgeBatch, emit func(int, elem.EdgeBatch)) {
	elem.Split(b.Items, edgeBytes, func(run []elem.Edge) { emit(0, elem.EdgeBatch{Items: run}) })
}

// edgeBytes is about the encoded size of an edge (elem.Edges).
func edgeBytes(e elem.Edge) int { return len(e.U) + len(e.V) + 24 }

// clusterLocalFn runs union-find over every verified edge, streamed from the group of
// the one key: it holds a node (id, length, best similarity) per clustered document,
// never the edges. Whether one worker can hold those is the launcher's call (--cc auto);
// beyond that, --cc distributed.
type clusterLocalFn struct {
	Partitions int
	Keep       string

	counts tally.Bundle
}

func (f *clusterLocalFn) ProcessElement(_ int, batches func(*elem.EdgeBatch) bool, emitFates func(int, elem.FateBatch), emitLines func(elem.LineBatch), _ func(tally.Count)) error {
	index := map[string]int{}
	var members []elem.Member
	node := func(id string, length int64, sim float64) int {
		i, ok := index[id]
		if !ok {
			i = len(members)
			index[id] = i
			members = append(members, elem.Member{ID: id, Length: length})
		}
		members[i].Sim = max(members[i].Sim, sim)
		return i
	}
	forest := unionfind.New(0)
	var b elem.EdgeBatch
	for batches(&b) {
		for _, e := range b.Items {
			u, v := node(e.U, e.ULen, e.Sim), node(e.V, e.VLen, e.Sim)
			forest.Grow(len(members))
			forest.Union(u, v)
		}
	}
	comps := map[int][]elem.Member{}
	for i, m := range members {
		r := forest.Find(i)
		comps[r] = append(comps[r], m)
	}
	out := NewSettled(f.Partitions)
	for _, r := range elem.SortedKeys(comps) {
		fates, label, line, err := keepOne(&f.counts, comps[r], f.Keep)
		if err != nil {
			return err
		}
		out.Add(fates, label, line, emitLines)
	}
	out.Flush(emitFates, emitLines)
	return nil
}

// NewSettled returns an empty Settled whose fates go by id partition of partitions.
func NewSettled(partitions int) *Settled { return &Settled{partitions: partitions} }

// Settled gathers what a step that settles many clusters emits: the fates by id
// partition, emitted at the end in batches of at most elem.ShuffleBytes, and the
// clusters.jsonl lines in batches of elem.BatchItems.
type Settled struct {
	partitions int
	byPart     map[int][]elem.Fate
	lines      []elem.SortedLine
}

// Add takes one cluster's fates and line (Settle's results; no line for "").
func (o *Settled) Add(fates []elem.Fate, label, line string, emitLines func(elem.LineBatch)) {
	if o.byPart == nil {
		o.byPart = map[int][]elem.Fate{}
	}
	for _, ft := range fates {
		p := elem.PartOfString(ft.ID, o.partitions)
		o.byPart[p] = append(o.byPart[p], ft)
	}
	if line == "" {
		return
	}
	if o.lines = append(o.lines, elem.SortedLine{Key: label, Line: line}); len(o.lines) == elem.BatchItems {
		emitLines(elem.LineBatch{Items: o.lines})
		o.lines = nil
	}
}

// Flush emits the remaining lines and every partition's fates.
func (o *Settled) Flush(emitFates func(int, elem.FateBatch), emitLines func(elem.LineBatch)) {
	if len(o.lines) > 0 {
		emitLines(elem.LineBatch{Items: o.lines})
	}
	for _, p := range elem.SortedKeys(o.byPart) {
		elem.Split(o.byPart[p], elem.FateSize, func(run []elem.Fate) { emitFates(p, elem.FateBatch{Items: run}) })
	}
}

func (f *clusterLocalFn) FinishBundle(_ func(int, elem.FateBatch), _ func(elem.LineBatch), emitCount func(tally.Count)) {
	f.counts.Emit(emitCount)
}

// Line is one line of clusters.jsonl.
type Line struct {
	Cluster string   `json:"cluster"`
	Size    int      `json:"size"`
	Kept    string   `json:"kept"`
	Members []string `json:"members"`           // input documents
	Indexed []string `json:"indexed,omitempty"` // indexed documents (--against), not counted in Size
}

// keepOne applies the keep policy to one cluster: it is labelled by its smallest id and
// keeps that member (smallest-id) or the longest text, ties going to the smaller id.
// Under a field policy it only labels the members: keep.ByField decides once their field
// values are read, and no line is returned.
func keepOne(counts *tally.Bundle, members []elem.Member, keep string) (fates []elem.Fate, label, line string, err error) {
	slices.SortFunc(members, func(a, b elem.Member) int { return cmp.Compare(a.ID, b.ID) })
	label, kept := members[0].ID, members[0]
	// Ids sort by class (indexed, preferred, input; see elem.IDClass): the policy picks
	// among the members of the best class only, and the first indexed member always wins.
	switch {
	case IsKeepField(keep):
		for _, m := range members {
			fates = append(fates, elem.Fate{ID: m.ID, Cluster: label, Sim: m.Sim, Size: int64(len(members))})
		}
		return fates, label, "", nil
	case elem.IDClass(kept.ID) == elem.ClassIndexed:
	case keep == KeepLongest:
		for _, m := range members[1:] {
			if elem.IDClass(m.ID) != elem.IDClass(kept.ID) {
				break
			}
			if m.Length > kept.Length {
				kept = m
			}
		}
	}
	return Settle(counts, members, label, kept.ID)
}

// Settle records the decision for one cluster whose members are sorted by id: each
// input member's fate, the cluster's counts (added to counts) and its clusters.jsonl
// line. Indexed members are listed apart: they are never removed and are no input
// records to decide. A cluster of indexed documents only (exact duplicates within an
// index) is no cluster of the run: it gets no line and is not counted.
func Settle(counts *tally.Bundle, members []elem.Member, label, kept string) (fates []elem.Fate, _, line string, err error) {
	if elem.IDClass(members[len(members)-1].ID) == elem.ClassIndexed {
		return nil, label, "", nil // sorted by id: the last member is indexed, so all are
	}
	ids := make([]string, 0, len(members))
	var indexed []string
	for _, m := range members {
		if elem.IDClass(m.ID) == elem.ClassIndexed {
			indexed = append(indexed, elem.ExternalID(m.ID))
			continue
		}
		ids = append(ids, elem.ExternalID(m.ID))
		fates = append(fates, elem.Fate{ID: m.ID, Cluster: kept, Removed: m.ID != kept, Sim: m.Sim, Size: int64(len(members))})
	}
	counts.Add(ClustersCount, 1)
	counts.Max(LargestClusterCount, int64(len(members)))
	counts.Add(SizeBucketCount(sizeBucket(len(members))), 1)
	b, err := json.Marshal(Line{Cluster: elem.ExternalID(label), Size: len(ids), Kept: elem.ExternalID(kept), Members: ids, Indexed: indexed})
	if err != nil {
		return nil, "", "", fmt.Errorf("cluster %q: %w", label, err)
	}
	return fates, label, string(b), nil
}

// clusterDistributed labels with large-star/small-star rounds over the edges gathered
// by partition, then gathers each cluster's members by its label's partition for the
// keep policy.
func clusterDistributed(s beam.Scope, edges beam.PCollection, o Options) (fates, lines, counts beam.PCollection) {
	labels, unconverged := connectedcomponents.LabelPartitioned(s, beam.ParDo(s, edgePairs, edges),
		connectedcomponents.Options{Rounds: o.Rounds}, o.Partitions)
	beam.ParDo0(s, &checkConvergedFn{Rounds: o.Rounds}, unconverged)
	byNode := elem.Gather[elem.Edge](s, beam.ParDo(s, &edgesByNodeFn{Partitions: o.Partitions}, edges))
	byLabel := elem.Gather[elem.Edge](s, beam.ParDo(s, &labelMembersFn{Partitions: o.Partitions}, beam.CoGroupByKey(s, labels, byNode)))
	fates, lines, counts = beam.ParDo3(s, &clusterPartFn{Partitions: o.Partitions, Keep: o.Keep}, byLabel)
	return fates, lines, counts
}

func edgePairs(k int, b elem.EdgeBatch) (int, connectedcomponents.Pairs) {
	p := make([]connectedcomponents.Pair, len(b.Items))
	for i, e := range b.Items {
		p[i] = connectedcomponents.Pair{Node: e.U, Other: e.V}
	}
	return k, connectedcomponents.Pairs{Items: p}
}

// edgesByNodeFn sends each edge to the partitions of its endpoints
// (connectedcomponents.PartOf), where their labels are.
type edgesByNodeFn struct {
	Partitions int
	out        *batch.ByPartition[elem.Edge]
}

func (f *edgesByNodeFn) StartBundle(_ func(int, elem.EdgeBatch)) {
	f.out = batch.New[elem.Edge](f.Partitions, elem.BatchItems)
}

func (f *edgesByNodeFn) ProcessElement(_ int, b elem.EdgeBatch, emit func(int, elem.EdgeBatch)) {
	send := func(p int, items []elem.Edge) { emit(p, elem.EdgeBatch{Items: items}) }
	for _, e := range b.Items {
		pu, pv := connectedcomponents.PartOf(e.U, f.Partitions), connectedcomponents.PartOf(e.V, f.Partitions)
		f.out.Add(pu, e, send)
		if pv != pu {
			f.out.Add(pv, e, send)
		}
	}
}

func (f *edgesByNodeFn) FinishBundle(emit func(int, elem.EdgeBatch)) {
	f.out.Flush(func(p int, items []elem.Edge) { emit(p, elem.EdgeBatch{Items: items}) })
}

// labelMembersFn joins a partition's labels with its nodes' edges: each node of the
// partition becomes a member (its length, its best similarity) of the cluster its label
// names, sent to the label's partition as an edge (label, member id) with the member's
// similarity and length (Sim, VLen).
type labelMembersFn struct {
	Partitions int
	out        *batch.ByPartition[elem.Edge]
}

func (f *labelMembersFn) StartBundle(_ func(int, elem.EdgeBatch)) {
	f.out = batch.New[elem.Edge](f.Partitions, elem.BatchItems)
}

func (f *labelMembersFn) ProcessElement(part int, labelBatches func(*connectedcomponents.Pairs) bool, edgeBatches func(*elem.EdgeBatch) bool, emit func(int, elem.EdgeBatch)) error {
	labels := map[string]string{}
	var lb connectedcomponents.Pairs
	for labelBatches(&lb) {
		for _, p := range lb.Items {
			labels[p.Node] = p.Other
		}
	}
	members := map[string]elem.Member{}
	member := func(id string, length int64, sim float64) {
		if connectedcomponents.PartOf(id, f.Partitions) != part {
			return
		}
		m, ok := members[id]
		if !ok {
			m = elem.Member{ID: id, Length: length}
		}
		m.Sim = max(m.Sim, sim)
		members[id] = m
	}
	var eb elem.EdgeBatch
	for edgeBatches(&eb) {
		for _, e := range eb.Items {
			member(e.U, e.ULen, e.Sim)
			member(e.V, e.VLen, e.Sim)
		}
	}
	send := func(p int, items []elem.Edge) { emit(p, elem.EdgeBatch{Items: items}) }
	for _, id := range slices.Sorted(maps.Keys(members)) {
		m := members[id]
		label, ok := labels[id]
		if !ok {
			return fmt.Errorf("cluster: no connected-components label for %q", id)
		}
		f.out.Add(connectedcomponents.PartOf(label, f.Partitions), elem.Edge{U: label, V: id, Sim: m.Sim, VLen: m.Length}, send)
	}
	return nil
}

func (f *labelMembersFn) FinishBundle(emit func(int, elem.EdgeBatch)) {
	f.out.Flush(func(p int, items []elem.Edge) { emit(p, elem.EdgeBatch{Items: items}) })
}

// clusterPartFn applies the keep policy to every cluster of a label partition, as
// clusterLocalFn does to every cluster: members arrive as labelMembersFn's edges.
type clusterPartFn struct {
	Partitions int
	Keep       string

	counts tally.Bundle
}

func (f *clusterPartFn) FinishBundle(_ func(int, elem.FateBatch), _ func(elem.LineBatch), emitCount func(tally.Count)) {
	f.counts.Emit(emitCount)
}

func (f *clusterPartFn) ProcessElement(_ int, b elem.EdgeBatch, emitFates func(int, elem.FateBatch), emitLines func(elem.LineBatch), _ func(tally.Count)) error {
	items := b.Items
	slices.SortFunc(items, elem.CompareEdgeIDs)
	out := NewSettled(f.Partitions)
	for i := 0; i < len(items); {
		j := i
		var members []elem.Member
		for ; j < len(items) && items[j].U == items[i].U; j++ {
			members = append(members, elem.Member{ID: items[j].V, Length: items[j].VLen, Sim: items[j].Sim})
		}
		fates, label, line, err := keepOne(&f.counts, members, f.Keep)
		if err != nil {
			return err
		}
		out.Add(fates, label, line, emitLines)
		i = j
	}
	out.Flush(emitFates, emitLines)
	return nil
}

// checkConvergedFn fails the run when connected components did not converge: the labels
// would be wrong and nothing may be written from them.
type checkConvergedFn struct{ Rounds int }

func (f *checkConvergedFn) ProcessElement(n int64) error {
	if n == 0 {
		return nil
	}
	return fmt.Errorf("connected components did not converge in %d rounds: %d nodes unconverged; rerun with a larger --cc-rounds (e.g. %d)", f.Rounds, n, 2*f.Rounds)
}
