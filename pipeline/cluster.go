package pipeline

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"
	"strconv"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/connectedcomponents"
	"github.com/neardup/neardup/record"
)

// Connected-components modes.
const (
	CCLocal       = "local"       // union-find over all verified edges in one worker (default)
	CCDistributed = "distributed" // large-star/small-star rounds, for edge sets no worker can hold
)

func init() {
	register.DoFn5x1[context.Context, int, edgeBatch, func(int, fateBatch), func(lineBatch), error](&clusterLocalFn{})
	register.Function3x0(edgeEndpoints)
	register.Function3x0(edgeMembers)
	register.Function2x1(mergeMember)
	register.Function4x0(labelledMember)
	register.DoFn5x1[context.Context, string, func(*Member) bool, func(int, fateBatch), func(lineBatch), error](&clusterDistributedFn{})
	register.DoFn1x1[int64, error](&checkConvergedFn{})
	register.DoFn6x1[context.Context, int, func(*locBatch) bool, func(*fateBatch) bool, func(*string) bool, func(record.Decisions), error](&decideFn{})
	register.Emitter2[int, fateBatch]()
	register.Emitter2[string, Member]()
	register.Emitter1[record.Decisions]()
	register.Iter1[Member]()
	register.Iter1[string]()
	register.Iter1[locBatch]()
	register.Iter1[fateBatch]()
}

var (
	clustersTotal = beam.NewCounter(metricsNS, "clusters")
	keptTotal     = beam.NewCounter(metricsNS, "kept")
	removedTotal  = beam.NewCounter(metricsNS, "removed")
	clusterSizes  = beam.NewDistribution(metricsNS, "cluster_size")
	// sizeBuckets[i] counts clusters of 2^i+1 .. 2^(i+1) members (bucket 0: size 2... see
	// sizeBucket); stats.json turns them into the cluster-size histogram.
	sizeBuckets = func() []beam.Counter {
		cs := make([]beam.Counter, 40)
		for i := range cs {
			cs[i] = beam.NewCounter(metricsNS, fmt.Sprintf("cluster_size_bucket_%02d", i))
		}
		return cs
	}()
)

// sizeBucket is the histogram bucket of a cluster size n ≥ 2: bucket i holds sizes
// 2^i+1 … 2^(i+1), so 2, 3–4, 5–8, 9–16, …
func sizeBucket(n int) int { return bits.Len(uint(n-1)) - 1 }

// sizeBucketName labels bucket i as stats.json shows it.
func sizeBucketName(i int) string {
	lo, hi := 1<<i+1, 1<<(i+1)
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// Cluster labels the documents joined by verified edges (all under key 0) with connected
// components and applies the keep policy. It returns each clustered document's fate,
// gathered by id partition, and the clusters.jsonl lines, one per cluster, in batches,
// sorted by cluster id when written (PCollection<lineBatch>).
func Cluster(s beam.Scope, edges beam.PCollection, cfg *Config) (fates, lines beam.PCollection) {
	s = s.Scope("Cluster")
	if cfg.CC == CCDistributed {
		return clusterDistributed(s, edges, cfg)
	}
	fates, lines = beam.ParDo2(s, &clusterLocalFn{Partitions: cfg.Partitions, Keep: cfg.Keep}, gather(s, appendEdges, edges))
	return gather(s, appendFates, fates), lines
}

// clusterLocalFn runs union-find over every verified edge. The edges of a dedup run are
// few next to its documents (one per removed document, about), so one worker holds them
// easily up to hundreds of millions; beyond that, --cc distributed.
type clusterLocalFn struct {
	Partitions int
	Keep       string
}

func (f *clusterLocalFn) ProcessElement(ctx context.Context, _ int, batch edgeBatch, emitFates func(int, fateBatch), emitLines func(lineBatch)) error {
	edges := batch.Items
	index := map[string]int{}
	var members []Member
	node := func(id string, length int64, sim float64) int {
		i, ok := index[id]
		if !ok {
			i = len(members)
			index[id] = i
			members = append(members, Member{ID: id, Length: length})
		}
		members[i].Sim = max(members[i].Sim, sim)
		return i
	}
	parent := []int{}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, e := range edges {
		u, v := node(e.U, e.ULen, e.Sim), node(e.V, e.VLen, e.Sim)
		for len(parent) < len(members) {
			parent = append(parent, len(parent))
		}
		if ru, rv := find(u), find(v); ru != rv {
			parent[max(ru, rv)] = min(ru, rv)
		}
	}
	comps := map[int][]Member{}
	for i, m := range members {
		r := find(i)
		comps[r] = append(comps[r], m)
	}
	byPart := map[int][]Fate{}
	var lines []sortedLine
	for _, r := range sortedKeys(comps) {
		fates, label, line, err := keepOne(ctx, comps[r], f.Keep)
		if err != nil {
			return err
		}
		for _, ft := range fates {
			p := partOfString(ft.ID, f.Partitions)
			byPart[p] = append(byPart[p], ft)
		}
		if line == "" {
			continue
		}
		if lines = append(lines, sortedLine{label, line}); len(lines) == batchItems {
			emitLines(lineBatch{lines})
			lines = nil
		}
	}
	if len(lines) > 0 {
		emitLines(lineBatch{lines})
	}
	for _, p := range sortedKeys(byPart) {
		emitFates(p, fateBatch{byPart[p]})
	}
	return nil
}

type clusterLine struct {
	Cluster string   `json:"cluster"`
	Size    int      `json:"size"`
	Kept    string   `json:"kept"`
	Members []string `json:"members"`           // input documents
	Indexed []string `json:"indexed,omitempty"` // indexed documents (--against), not counted in Size
}

// keepOne applies the keep policy to one cluster: it is labelled by its smallest id and
// keeps that member (smallest-id) or the longest text, ties going to the smaller id.
// Under a field policy it only labels the members: KeepByField decides once their field
// values are read, and no line is returned.
func keepOne(ctx context.Context, members []Member, keep string) (fates []Fate, label, line string, err error) {
	slices.SortFunc(members, func(a, b Member) int { return cmp.Compare(a.ID, b.ID) })
	label, kept := members[0].ID, members[0]
	// Ids sort by class (indexed, preferred, input; see against.go): the policy picks
	// among the members of the best class only, and the first indexed member always wins.
	switch {
	case IsKeepField(keep):
		for _, m := range members {
			fates = append(fates, Fate{ID: m.ID, Cluster: label, Sim: m.Sim, Size: int64(len(members))})
		}
		return fates, label, "", nil
	case idClass(kept.ID) == classIndexed:
	case keep == KeepLongest:
		for _, m := range members[1:] {
			if idClass(m.ID) != idClass(kept.ID) {
				break
			}
			if m.Length > kept.Length {
				kept = m
			}
		}
	}
	return settle(ctx, members, label, kept.ID)
}

// settle records the decision for one cluster whose members are sorted by id: each
// input member's fate, the cluster's counters and its clusters.jsonl line. Indexed
// members are listed apart: they are never removed and are no input records to decide.
func settle(ctx context.Context, members []Member, label, kept string) (fates []Fate, _, line string, err error) {
	ids := make([]string, 0, len(members))
	var indexed []string
	for _, m := range members {
		if idClass(m.ID) == classIndexed {
			indexed = append(indexed, externalID(m.ID))
			continue
		}
		ids = append(ids, externalID(m.ID))
		fates = append(fates, Fate{ID: m.ID, Cluster: kept, Removed: m.ID != kept, Sim: m.Sim, Size: int64(len(members))})
	}
	clustersTotal.Inc(ctx, 1)
	clusterSizes.Update(ctx, int64(len(members)))
	sizeBuckets[sizeBucket(len(members))].Inc(ctx, 1)
	b, err := json.Marshal(clusterLine{Cluster: externalID(label), Size: len(ids), Kept: externalID(kept), Members: ids, Indexed: indexed})
	if err != nil {
		return nil, "", "", fmt.Errorf("cluster %q: %w", label, err)
	}
	return fates, label, string(b), nil
}

// clusterDistributed labels with large-star/small-star rounds, then groups each
// cluster's members by label for the keep policy.
func clusterDistributed(s beam.Scope, edges beam.PCollection, cfg *Config) (fates, lines beam.PCollection) {
	labels, unconverged := connectedcomponents.Label(s, beam.ParDo(s, edgeEndpoints, edges), connectedcomponents.Options{Rounds: cfg.CCRounds})
	beam.ParDo0(s, &checkConvergedFn{Rounds: cfg.CCRounds}, unconverged)
	info := beam.CombinePerKey(s, mergeMember, beam.ParDo(s, edgeMembers, edges))
	byLabel := beam.ParDo(s, labelledMember, beam.CoGroupByKey(s, labels, info))
	fates, lines = beam.ParDo2(s, &clusterDistributedFn{Partitions: cfg.Partitions, Keep: cfg.Keep}, beam.GroupByKey(s, byLabel))
	return gather(s, appendFates, fates), lines
}

func edgeEndpoints(_ int, batch edgeBatch, emit func(string, string)) {
	for _, e := range batch.Items {
		emit(e.U, e.V)
	}
}

func edgeMembers(_ int, batch edgeBatch, emit func(string, Member)) {
	for _, e := range batch.Items {
		emit(e.U, Member{ID: e.U, Length: e.ULen, Sim: e.Sim})
		emit(e.V, Member{ID: e.V, Length: e.VLen, Sim: e.Sim})
	}
}

func mergeMember(a, b Member) Member {
	a.Sim = max(a.Sim, b.Sim)
	return a
}

func labelledMember(_ string, labels func(*string) bool, infos func(*Member) bool, emit func(string, Member)) {
	var label string
	var m Member
	if labels(&label) && infos(&m) {
		emit(label, m)
	}
}

// clusterDistributedFn gathers one cluster's members; they are sorted for the
// clusters.jsonl line, so a cluster's members are held in memory here.
type clusterDistributedFn struct {
	Partitions int
	Keep       string
}

func (f *clusterDistributedFn) ProcessElement(ctx context.Context, _ string, iter func(*Member) bool, emitFates func(int, fateBatch), emitLines func(lineBatch)) error {
	var members []Member
	var m Member
	for iter(&m) {
		members = append(members, m)
	}
	fates, label, line, err := keepOne(ctx, members, f.Keep)
	if err != nil {
		return err
	}
	for _, ft := range fates {
		emitFates(partOfString(ft.ID, f.Partitions), fateBatch{[]Fate{ft}})
	}
	if line != "" {
		emitLines(lineBatch{[]sortedLine{{label, line}}})
	}
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

// decideFn gives every input document of a partition its Decision, emitted in batches
// (record.Decisions) of at most batchItems; documents in no cluster are kept. Indexed
// documents get none. Indexes names the --against indexes. A clustered document, and one
// of the ids shown lists (the pairs of SimilaritiesFile), is Shown: report.html may show
// its text.
type decideFn struct{ Indexes []string }

func (f decideFn) ProcessElement(ctx context.Context, _ int, locIter func(*locBatch) bool, fateIter func(*fateBatch) bool, shownIter func(*string) bool, emit func(record.Decisions)) error {
	fates := map[string]Fate{}
	var part fateBatch
	for fateIter(&part) {
		for _, ft := range part.Items {
			fates[ft.ID] = ft
		}
	}
	shown := map[string]bool{}
	var id string
	for shownIter(&id) {
		shown[id] = true
	}
	var locs locBatch
	var out []record.Decision
	var seen, decided, removed int64
	for locIter(&locs) {
		for _, l := range locs.Items {
			if idClass(l.ID) == classIndexed {
				continue
			}
			ft, ok := fates[l.ID]
			if ok {
				seen++
			}
			d := decisionOf(l, ft, ok, f.Indexes)
			d.Shown = ok || shown[l.ID]
			decided++
			if d.Removed {
				removed++
			}
			if out = append(out, d); len(out) == batchItems {
				emit(record.Decisions{Items: out})
				out = nil
			}
		}
	}
	if len(out) > 0 {
		emit(record.Decisions{Items: out})
	}
	if seen != int64(len(fates)) {
		return fmt.Errorf("%d clustered documents have no input location (internal error)", int64(len(fates))-seen)
	}
	removedTotal.Inc(ctx, removed)
	keptTotal.Inc(ctx, decided-removed)
	return nil
}
