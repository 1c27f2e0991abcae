// Package keep is the last stage of the dedup pipeline: it applies a field keep policy
// (ByField) and gives every input document its Decision (Decide). It imports elem and
// cluster, no other stage.
package keep

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/io/sink"
	"github.com/neardup/neardup/pipeline/internal/cluster"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/record"
)

// Field is a parsed --keep field:NAME:max|min.
type Field struct {
	Name string
	Max  bool // keep the largest value; false: the smallest
}

// ParseField parses field:NAME:max|min. NAME is everything between the first and
// the last colon, so it may itself hold colons.
func ParseField(keep string) (Field, error) {
	rest, ok := strings.CutPrefix(keep, cluster.KeepFieldPrefix)
	i := strings.LastIndexByte(rest, ':')
	if !ok || i <= 0 {
		return Field{}, fmt.Errorf("want field:NAME:max or field:NAME:min, got %q", keep)
	}
	switch rest[i+1:] {
	case "max":
		return Field{Name: rest[:i], Max: true}, nil
	case "min":
		return Field{Name: rest[:i]}, nil
	}
	return Field{}, fmt.Errorf("want field:NAME:max or field:NAME:min, got %q (the order must be max or min)", keep)
}

// FieldRequest asks for the keep field of one clustered document, at Line of its file.
type FieldRequest struct {
	Line      int64
	ID, Label string
	Sim       float64
	Size      int64
}

// RankedMember is a clustered document with its keep-field value, on its way to its
// cluster (keyed by the cluster's label, its smallest id).
type RankedMember struct {
	ID        string
	File      string
	Line      int64
	Sim       float64
	Size      int64
	ValueKind int32 // record.FieldKind
	Value     string
}

type fieldReqBatch struct{ Items []FieldRequest }

func appendFieldReqs(a, b fieldReqBatch) fieldReqBatch {
	return fieldReqBatch{append(a.Items, b.Items...)}
}

func init() {
	for _, t := range []any{FieldRequest{}, RankedMember{}, fieldReqBatch{}} {
		beam.RegisterType(reflect.TypeOf(t))
	}
	register.Function4x1(fieldRequests)
	register.Function2x1(appendFieldReqs)
	register.DoFn4x1[context.Context, string, fieldReqBatch, func(string, RankedMember), error](&readFieldFn{})
	register.DoFn5x1[string, func(*RankedMember) bool, func(int, elem.FateBatch), func(elem.LineBatch), func(tally.Count), error](&keepFieldFn{})
	register.Emitter2[string, fieldReqBatch]()
	register.Emitter2[string, RankedMember]()
	register.Iter1[RankedMember]()
}

// ByField takes the locations, PCollection<KV<int, elem.LocBatch>>, and the provisional
// fates Cluster gives under a field policy, PCollection<KV<int, elem.FateBatch>>, both
// gathered by id partition, and returns the final fates by id partition in batches of at
// most elem.ShuffleBytes (keep.Decide's CoGroupByKey gathers them), and the clusters.jsonl
// lines, PCollection<elem.LineBatch>.
//
// keep is a policy field:NAME:max|min, for input of the given format. Cluster has
// labelled every clustered document with its cluster's smallest id; here each input
// file holding clustered documents is read once more for their field values (only
// those lines are parsed), the members meet by label, and the member with the best
// value is kept: a missing value loses to any present one, ties go to the smallest id.
// It returns the fates, the clusters.jsonl lines and the cluster counts, as
// cluster.Cluster does. limit is the record size limit the inputs were read with.
func ByField(s beam.Scope, locs, fates beam.PCollection, keep, format string, partitions int, limit int64) (_, _, _ beam.PCollection) {
	s = s.Scope("keep.ByField")
	kf, err := ParseField(keep)
	if err != nil {
		panic(fmt.Sprintf("keep.ByField: --keep: %v (Validate accepts only valid policies)", err))
	}
	byFile := beam.ParDo(s, fieldRequests, beam.CoGroupByKey(s, locs, fates))
	ranked := beam.ParDo(s, &readFieldFn{Format: format, Field: kf.Name, MaxRecordBytes: limit}, beam.CombinePerKey(s, appendFieldReqs, byFile))
	final, lines, counts := beam.ParDo3(s, &keepFieldFn{Partitions: partitions, Field: kf.Name, Max: kf.Max}, beam.GroupByKey(s, ranked))
	return final, lines, counts
}

// fieldRequests turns one id partition's clustered documents into read requests keyed
// by the file that holds each.
func fieldRequests(_ int, locIter func(*elem.LocBatch) bool, fateIter func(*elem.FateBatch) bool, emit func(string, fieldReqBatch)) error {
	fates := map[string]elem.Fate{}
	var fb elem.FateBatch
	for fateIter(&fb) {
		for _, ft := range fb.Items {
			fates[ft.ID] = ft
		}
	}
	if len(fates) == 0 {
		return nil
	}
	byFile := map[string][]FieldRequest{}
	var lb elem.LocBatch
	found := 0
	for locIter(&lb) {
		items, err := elem.LocItems(lb)
		if err != nil {
			return err
		}
		for _, l := range items {
			if ft, ok := fates[l.ID]; ok {
				found++
				byFile[l.File] = append(byFile[l.File], FieldRequest{Line: l.Line, ID: l.ID, Label: ft.Cluster, Sim: ft.Sim, Size: ft.Size})
			}
		}
	}
	if found != len(fates) {
		return fmt.Errorf("%d clustered documents have no input location (internal error)", len(fates)-found)
	}
	for _, f := range slices.Sorted(maps.Keys(byFile)) {
		emit(f, fieldReqBatch{byFile[f]})
	}
	return nil
}

// readFieldFn reads one input file's requested field values.
type readFieldFn struct {
	Format, Field  string
	MaxRecordBytes int64
}

func (f *readFieldFn) ProcessElement(ctx context.Context, file string, batch fieldReqBatch, emit func(string, RankedMember)) error {
	reqs := batch.Items[:0]
	for _, r := range batch.Items {
		if elem.IDClass(r.ID) == elem.ClassIndexed {
			// An indexed document has no fields here, and wins its cluster anyway.
			emit(r.Label, RankedMember{ID: r.ID, File: file, Line: r.Line, Sim: r.Sim, Size: r.Size, ValueKind: int32(record.FieldMissing)})
			continue
		}
		reqs = append(reqs, r)
	}
	if len(reqs) == 0 {
		return nil
	}
	slices.SortFunc(reqs, func(a, b FieldRequest) int { return cmp.Compare(a.Line, b.Line) })
	lines := make([]int64, len(reqs))
	for i, r := range reqs {
		lines[i] = r.Line
	}
	values, err := sink.FieldValues(ctx, file, f.Format, f.Field, lines, f.MaxRecordBytes)
	if err != nil {
		return err
	}
	for _, r := range reqs {
		v := values[r.Line]
		emit(r.Label, RankedMember{ID: r.ID, File: file, Line: r.Line, Sim: r.Sim, Size: r.Size, ValueKind: int32(v.Kind), Value: v.Text})
	}
	return nil
}

// keepFieldFn decides one cluster. Its members are held in memory, as for the
// clusters.jsonl line; the bundle's fates leave by id partition at its end, in bounded
// batches (cluster.Settled), as Cluster's do.
type keepFieldFn struct {
	Partitions int
	Field      string
	Max        bool

	counts tally.Bundle
	out    *cluster.Settled
}

func (f *keepFieldFn) FinishBundle(emitFates func(int, elem.FateBatch), emitLines func(elem.LineBatch), emitCount func(tally.Count)) {
	if f.out != nil {
		f.out.Flush(emitFates, emitLines)
		f.out = nil
	}
	f.counts.Emit(emitCount)
}

func (f *keepFieldFn) ProcessElement(label string, iter func(*RankedMember) bool, _ func(int, elem.FateBatch), emitLines func(elem.LineBatch), _ func(tally.Count)) error {
	var ranked []RankedMember
	var m RankedMember
	for iter(&m) {
		ranked = append(ranked, m)
	}
	best, err := bestByField(ranked, f.Max)
	if err != nil {
		return fmt.Errorf("--keep field:%s: cluster %q: %w", f.Field, label, err)
	}
	members := make([]elem.Member, len(ranked))
	for i, r := range ranked {
		members[i] = elem.Member{ID: r.ID, Sim: r.Sim}
	}
	fates, label, line, err := cluster.Settle(&f.counts, members, label, best)
	if err != nil {
		return err
	}
	if f.out == nil {
		f.out = cluster.NewSettled(f.Partitions)
	}
	f.out.Add(fates, label, line, emitLines) // line "": a cluster of indexed documents only
	return nil
}

// bestByField sorts the members by id and returns the id of the one with the largest
// (max) or smallest value among the members of the best class (indexed, preferred,
// input); missing values lose, ties go to the smallest id. A cluster
// whose values mix numbers and strings is an error naming two of its records.
func bestByField(ranked []RankedMember, largest bool) (string, error) {
	slices.SortFunc(ranked, func(a, b RankedMember) int { return cmp.Compare(a.ID, b.ID) })
	best := 0
	val := func(r RankedMember) record.FieldValue {
		return record.FieldValue{Kind: record.FieldKind(r.ValueKind), Text: r.Value}
	}
	for i := 1; i < len(ranked); i++ {
		if elem.IDClass(ranked[i].ID) != elem.IDClass(ranked[0].ID) {
			break // ids sort by class (see elem.IDClass): only the best class competes
		}
		a, b := val(ranked[i]), val(ranked[best])
		c, err := record.CompareFields(a, b)
		if err != nil {
			return "", fmt.Errorf("%s:%d (id %q) and %s:%d (id %q): %w",
				ranked[i].File, ranked[i].Line, ranked[i].ID, ranked[best].File, ranked[best].Line, ranked[best].ID, err)
		}
		if !largest && a.Kind != record.FieldMissing && b.Kind != record.FieldMissing {
			c = -c
		}
		if c > 0 {
			best = i
		}
	}
	return ranked[best].ID, nil
}
