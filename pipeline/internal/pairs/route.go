package pairs

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/neardup/neardup/internal/batch"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// routeFn removes edges found in several bands and asks for both ends' shingle sets, in
// batches per id partition gathered over the bundle, so the join with the locations
// receives few large elements; with SpillDir set the requests go to its spill files
// (elem.Spiller), as the edges came, and only references pass through the runner.
type routeFn struct {
	Partitions int
	SpillDir   string

	reqs  *batch.ByPartition[elem.Half]
	spill elem.Spiller
}

func (f *routeFn) Setup() {
	f.reqs = batch.New[elem.Half](f.Partitions, elem.BatchItems)
	f.spill = elem.Spiller{Dir: f.SpillDir, Kind: "requests"}
}

func (f *routeFn) ProcessElement(_ int, b elem.EdgeBatch, emit func(int, elem.HalfBatch)) error {
	edges, err := elem.Edges.TakeItems(b) // the only reader of the candidate edges
	if err != nil {
		return err
	}
	slices.SortFunc(edges, elem.CompareEdgeIDs)
	edges = slices.CompactFunc(edges, func(a, b elem.Edge) bool { return a.U == b.U && a.V == b.V })
	for _, e := range edges {
		for _, node := range []string{e.U, e.V} {
			p, h := elem.PartOfString(node, f.Partitions), elem.Half{U: e.U, V: e.V, Node: node}
			if f.spill.Dir != "" {
				elem.SpillItems(&f.spill, elem.Halves, p, h)
				continue
			}
			f.reqs.Add(p, h, func(p int, items []elem.Half) { emit(p, elem.HalfBatch{Items: items}) })
		}
	}
	return nil
}

func (f *routeFn) FinishBundle(emit func(int, elem.HalfBatch)) error {
	f.reqs.Flush(func(p int, items []elem.Half) { emit(p, elem.HalfBatch{Items: items}) })
	return f.spill.Close(func(p int, ref string) { emit(p, elem.HalfBatch{Spilled: []string{ref}}) })
}

// locateFn turns the requests of one id partition into read requests keyed by the file
// that holds each node; with SpillDir set the read requests go to its spill files, by
// file, and the runner carries only references (a one-file corpus's requests all meet
// in one element).
type locateFn struct {
	SpillDir string

	spill elem.Spiller
	files []string // the files the bundle spilled requests of, by spill partition
	num   map[string]int
}

func (f *locateFn) Setup() {
	f.spill = elem.Spiller{Dir: f.SpillDir, Kind: "reads"}
	f.num = map[string]int{}
}

func (f *locateFn) ProcessElement(_ int, locIter func(*elem.LocBatch) bool, reqIter func(*elem.HalfBatch) bool, emit func(string, readBatch)) error {
	var reqs []elem.Half
	var part elem.HalfBatch
	for reqIter(&part) {
		items, err := elem.Halves.TakeItems(part) // the only reader of the requests
		if err != nil {
			return err
		}
		reqs = append(reqs, items...)
	}
	if len(reqs) == 0 {
		return nil
	}
	// Large buckets with one smallest id ask for their members once per bucket.
	slices.SortFunc(reqs, compareHalves)
	reqs = slices.CompactFunc(reqs, func(a, b elem.Half) bool { return a.U == b.U && a.V == b.V && a.Node == b.Node })
	var locs []elem.IDLoc
	var lb elem.LocBatch
	for locIter(&lb) {
		items, err := elem.LocItems(lb)
		if err != nil {
			return err
		}
		locs = append(locs, items...)
	}
	slices.SortFunc(locs, func(a, b elem.IDLoc) int { return cmp.Compare(a.ID, b.ID) })
	byFile := map[string][]ReadRequest{}
	for _, r := range reqs {
		i, ok := slices.BinarySearchFunc(locs, r.Node, func(l elem.IDLoc, id string) int { return cmp.Compare(l.ID, id) })
		if !ok {
			return fmt.Errorf("candidate %q has no input location (internal error)", r.Node)
		}
		l := locs[i]
		byFile[l.File] = append(byFile[l.File], ReadRequest{Line: l.Line, U: r.U, V: r.V, Node: r.Node})
	}
	for _, file := range slices.Sorted(maps.Keys(byFile)) {
		if f.spill.Dir == "" {
			emit(file, readBatch{Items: byFile[file]})
			continue
		}
		p, ok := f.num[file]
		if !ok {
			p = len(f.files)
			f.num[file] = p
			f.files = append(f.files, file)
		}
		elem.SpillItems(&f.spill, readRequests, p, byFile[file]...)
	}
	return nil
}

func (f *locateFn) FinishBundle(emit func(string, readBatch)) error {
	err := f.spill.Close(func(p int, ref string) { emit(f.files[p], readBatch{Spilled: []string{ref}}) })
	f.files = nil
	clear(f.num)
	return err
}
