// Package pairs is the verification stage of the dedup pipeline: it re-reads the
// candidates' lines, shingles them again and decides each candidate pair and each large
// LSH bucket by exact Jaccard (or the MinHash estimate). It imports elem and the pure
// algorithms, no other stage.
package pairs

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/shingleset"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/internal/onekey"
	"github.com/neardup/neardup/internal/ordered"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/jaccard"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/record"
)

// Verify modes: how a candidate pair becomes a duplicate.
const (
	Exact    = "exact"    // exact Jaccard of the shingle-hash sets decides (default)
	Estimate = "estimate" // the MinHash estimate decides
	None     = "none"     // every LSH candidate is a duplicate
)

// Options are the verification stage's settings.
type Options struct {
	Shingle     shingleset.Config
	Source      source.Config
	Partitions  int
	Renamed     map[string]int // see rereadFn
	SpillDir    string
	Scheme      string // minhash.Scheme
	Seed        int64
	NumPerm     int
	Mode        string // Exact, Estimate or None
	Threshold   float64
	Floor       float64 // estimates below it are counted (estimate_filtered)
	Comparisons int     // candidates.Resolve's budget per member of a large bucket
	BudgetFloor int     // candidates.Budget's floor, in sets
	// Containment decides by the containment of the smaller set instead of Jaccard
	// (--measure containment): see decideContainment.
	Containment bool
}

func init() {
	register.DoFn3x1[int, elem.EdgeBatch, func(int, elem.HalfBatch), error](&routeFn{})
	register.DoFn4x1[int, func(*elem.LocBatch) bool, func(*elem.HalfBatch) bool, func(string, readBatch), error](&locateFn{})
	register.DoFn4x1[context.Context, string, readBatch, func(int, elem.HalfBatch), error](&rereadFn{})
	register.Emitter2[string, readBatch]()
	register.Iter1[elem.LocBatch]()
	register.DoFn6x1[context.Context, int, elem.HalfBatch, func(int, elem.EdgeBatch), func(elem.NearBatch), func(tally.Count), error](&checkPairsFn{})
	onekey.Producer(&checkPairsFn{}, 0) // verified edges under one key, for --cc local
	register.Iter1[elem.HalfBatch]()
	register.Emitter2[int, elem.HalfBatch]()
}

var (
	verifyNanos = beam.NewCounter(elem.MetricsNS, "verify_nanos")
)

// Verify decides the candidate edges from the LSH buckets, PCollection<KV<int,
// elem.EdgeBatch>> gathered by partition, and resolves the large buckets whose members,
// PCollection<KV<int, elem.HalfBatch>>, buckets.Candidates sent instead; locs are the
// gathered locations, PCollection<KV<int, elem.LocBatch>>. No stage kept the documents' shingle sets (shuffling every set would cost
// more than all else together), so each distinct candidate pair and each large bucket
// finds its members' input lines through locs, every input file with candidates is read
// again to shingle just those lines, and the sets meet in the pair's or the bucket's
// partition, where they are decided. The results are the verified edges, all under key 0,
// PCollection<elem.NearBatch>, the similarities for similarities.json, and the counts,
// PCollection<tally.Count> (candidate_pairs, estimate_filtered, false_candidates,
// verified_pairs, large_bucket_comparisons, unresolved_bucket_pairs).
func Verify(s beam.Scope, locs, candidates, members beam.PCollection, o Options) (verified, near, counts beam.PCollection) {
	s = s.Scope("pairs.Verify")
	requests := beam.Flatten(s, beam.ParDo(s, &routeFn{Partitions: o.Partitions, SpillDir: o.SpillDir}, candidates), members)
	byFile := beam.ParDo(s, &locateFn{SpillDir: o.SpillDir}, beam.CoGroupByKey(s, locs, requests))
	halves := beam.ParDo(s, &rereadFn{Shingle: o.Shingle, Source: o.Source, Partitions: o.Partitions,
		Renamed: o.Renamed, SpillDir: o.SpillDir, Containment: o.Containment},
		elem.Gather[ReadRequest](s, byFile))
	return beam.ParDo3(s, &checkPairsFn{
		Scheme: o.Scheme, Seed: o.Seed, NumPerm: o.NumPerm, Mode: o.Mode,
		Threshold: o.Threshold, Floor: o.Floor, Comparisons: o.Comparisons, BudgetFloor: o.BudgetFloor,
		Containment: o.Containment,
	}, elem.Gather[elem.Half](s, halves))
}

// rereadFn reads one input file again and shingles the lines candidates asked for. A
// document's shingle hashes go to each of its pairs' partitions, so the halves outweigh
// the band entries per candidate: with SpillDir set each is encoded straight into its
// partition's spill buffer (elem.Spiller), as features.FeaturizeFn's band entries are. The file is
// read on the bundle's goroutine and the wanted lines are parsed and shingled on pools
// of one goroutine per core, in file order (a one-file corpus is one element).
type rereadFn struct {
	Shingle    shingleset.Config
	Source     source.Config
	Partitions int
	Renamed    map[string]int // files whose ids are renamed: index shards (their index's ordinal), preferred inputs (-1)
	SpillDir   string
	// Containment sends every large bucket's members to one partition (containmentPartition).
	Containment bool

	sh    *shingleset.Shingler
	spill elem.Spiller
	pool  *ordered.Pool[record.Doc, reread]
}

// reread is one re-read document with its shingle set.
type reread struct {
	doc    record.Doc
	hashes []uint64
	length int64
}

func (f *rereadFn) Setup() (err error) {
	f.spill = elem.Spiller{Dir: f.SpillDir, Kind: "halves"}
	f.sh, err = f.Shingle.Full().Shingler() // verification is exact: on the whole sets
	f.pool = ordered.New(runtime.GOMAXPROCS(0), 16, func() func(record.Doc) reread {
		return func(d record.Doc) reread {
			hashes, _ := elem.DocHashes(f.sh, d)
			return reread{doc: d, hashes: hashes, length: elem.RuneCount(d.Text)}
		}
	})
	return err
}

func (f *rereadFn) Teardown() {
	if f.pool != nil {
		f.pool.Close()
	}
}

func (f *rereadFn) FinishBundle(emit func(int, elem.HalfBatch)) error {
	return f.spill.Close(func(p int, ref string) { emit(p, elem.HalfBatch{Spilled: []string{ref}}) })
}

func (f *rereadFn) ProcessElement(ctx context.Context, file string, batch readBatch, emit func(int, elem.HalfBatch)) error {
	reqs, err := readRequests.TakeItems(batch) // the only reader of the read requests
	if err != nil {
		return err
	}
	slices.SortFunc(reqs, func(a, b ReadRequest) int { return cmp.Compare(a.Line, b.Line) })
	type pending struct {
		items []elem.Half
		bytes int
	}
	byPart := map[int]pending{}
	next := 0
	var fail error
	// The requested lines come back shingled from the pool, in file order.
	deliver := func(x reread) {
		d := x.doc
		for next < len(reqs) && reqs[next].Line < d.Line {
			next++
		}
		for ; next < len(reqs) && reqs[next].Line == d.Line; next++ {
			r := reqs[next]
			if r.Node != d.ID && fail == nil {
				fail = fmt.Errorf("re-read %s:%d: found id %q where %q was (the file changed during the run?)", file, d.Line, d.ID, r.Node)
			}
			h := elem.Half{U: r.U, V: r.V, Node: r.Node, Hashes: x.hashes, Length: x.length}
			p := h.Partition(f.Partitions)
			if f.Containment && h.IsBucketMember() {
				p = containmentPartition
			}
			if f.spill.Dir != "" {
				// Encoded straight into the partition's spill buffer: no batch, no
				// temporary encoding and no copy of it.
				elem.SpillItems(&f.spill, elem.Halves, p, h)
				continue
			}
			// Through the runner, in chunks and batches of bounded bytes.
			for _, c := range h.Chunks(elem.ChunkHashes) {
				b := byPart[p]
				b.items = append(b.items, c)
				if b.bytes += elem.Halves.Size(c); b.bytes >= elem.ShuffleBytes || len(b.items) == halvesPerBatch {
					emit(p, elem.HalfBatch{Items: b.items})
					b.items, b.bytes = nil, 0
				}
				byPart[p] = b
			}
		}
	}
	// A run of large files is not held a pool's depth of texts and sets at a time.
	most := source.InFlightBytes()
	readErr := f.read(ctx, file, reqs, func(d record.Doc) { f.pool.AddSized(d, int64(len(d.Text)), most, deliver) })
	f.pool.Flush(deliver)
	if fail = cmp.Or(fail, readErr); fail != nil {
		return fail
	}
	if next < len(reqs) {
		return fmt.Errorf("re-read %s: line %d of a candidate (%q) is no longer readable (the file changed during the run?)", file, reqs[next].Line, reqs[next].Node)
	}
	for _, p := range elem.SortedKeys(byPart) {
		if b := byPart[p]; len(b.items) > 0 {
			emit(p, elem.HalfBatch{Items: b.items})
		}
	}
	return nil
}

// maxSetBytes bounds the spilled sets a decider decodes into memory whatever the
// memory limit: past it, reading a set back costs less than the memory it would hold.
const maxSetBytes = 64 << 20

// halvesPerBatch bounds what rereadFn holds when it does not spill: a partition's halves
// leave in batches of this many, or of elem.ShuffleBytes, as the file is read, so a file
// with many candidates is never held whole and no batch outgrows a runner's sort buffer.
const halvesPerBatch = 256

// checkPairsFn decides the candidate pairs of one partition, each from its two halves,
// and resolves its large buckets, each from its members' sets (candidates.Resolve).
// Under --verify exact a pair is a duplicate exactly when its exact Jaccard reaches the
// threshold; the estimate decides nothing.
// Signatures are recomputed here rather than shuffled: signing a document costs less
// than moving its signature. The partitions are decided on a pool of one goroutine per
// core and emitted in input order (Prism runs the stage as one bundle: see buckets.Candidates).
type checkPairsFn struct {
	Scheme      string
	Seed        int64
	NumPerm     int
	Mode        string
	Threshold   float64
	Floor       float64
	Comparisons int // Resolve's budget per member of a large bucket (candidates.Budget)
	BudgetFloor int // candidates.Budget's floor, in sets
	Containment bool

	signer   *minhash.Signer
	sigLimit int64 // bytes of signatures one decider holds in a block (see signatures)
	setLimit int64 // bytes of spilled sets one decider decodes into memory (sets.limit)
	pool     *elem.PartitionPool[elem.HalfBatch, decided]
	counts   tally.Bundle
	first    firstEdges // containment: the verified edges passed on
}

func (f *checkPairsFn) Setup() error {
	s, err := minhash.NewSigner(minhash.Scheme(f.Scheme), f.Seed, f.NumPerm)
	f.signer = s
	// The deciders together hold signatures up to an eighth of the process's memory
	// limit (--memory on the embedded runner): a larger bucket signs its members again
	// as it meets them rather than growing with its size.
	f.sigLimit = debug.SetMemoryLimit(-1) / 8 / int64(runtime.GOMAXPROCS(0))
	// Spilled sets are decoded rather than read back one at a time while a partition's
	// fit in a thirty-second of the limit, and at most maxSetBytes: an ordinary
	// partition's always do, a family of near-copies' are read back as they are met.
	f.setLimit = min(debug.SetMemoryLimit(-1)/32/int64(runtime.GOMAXPROCS(0)), maxSetBytes)
	f.pool = elem.NewPartitionPool(f.checkPartition)
	f.first = firstEdges{}
	return err
}

func (f *checkPairsFn) Teardown() { f.pool.Close() }

func (f *checkPairsFn) ProcessElement(ctx context.Context, _ int, batch elem.HalfBatch, emit func(int, elem.EdgeBatch), emitNear func(elem.NearBatch), _ func(tally.Count)) error {
	return f.pool.Add(batch, func(r decided) error { return f.deliver(ctx, r, emit, emitNear) })
}

func (f *checkPairsFn) FinishBundle(ctx context.Context, emit func(int, elem.EdgeBatch), emitNear func(elem.NearBatch), emitCount func(tally.Count)) error {
	err := f.pool.Flush(func(r decided) error { return f.deliver(ctx, r, emit, emitNear) })
	f.counts.Emit(emitCount)
	return err
}

func (f *checkPairsFn) deliver(ctx context.Context, r decided, emit func(int, elem.EdgeBatch), emitNear func(elem.NearBatch)) error {
	if r.err != nil {
		return r.err
	}
	c := r.counts
	if f.Containment {
		// Only what is passed on: the counts stay every verdict's, so that they do not
		// depend on which partitions a bundle held.
		r.out = f.first.keep(r.out)
	}
	if len(r.out) > 0 {
		emit(0, elem.EdgeBatch{Items: r.out})
	}
	emitNear(r.near)
	f.counts.Add("candidate_pairs", c.candidates)
	f.counts.Add("estimate_filtered", c.estimateDropped)
	f.counts.Add("false_candidates", c.falseCandidates)
	f.counts.Add("verified_pairs", c.verified)
	f.counts.Add("large_bucket_comparisons", c.compared)
	f.counts.Add("unresolved_bucket_pairs", c.unresolved)
	verifyNanos.Inc(ctx, c.nanos)
	elem.Progress.Stage.Store("verify")
	return nil
}

// checkPartition decides the candidate pairs and resolves the large buckets of one
// partition's halves.
func (f *checkPairsFn) checkPartition(batch elem.HalfBatch) decided {
	start := time.Now()
	st := &sets{limit: f.setLimit}
	defer st.close()
	halves, err := st.gather(batch)
	if err != nil {
		return decided{err: err}
	}
	defer elem.ReleaseSpilled(batch.Spilled) // the only reader of the halves
	// Bucket members (U empty) sort first, each bucket's members by id.
	slices.SortFunc(halves, func(a, b half) int { return compareHalves(a.Half, b.Half) })
	if halves, err = joinChunks(halves); err != nil {
		return decided{err: err}
	}
	d := decider{f: f, sets: st, sigs: newSignatures(f.signer, minhash.Scheme(f.Scheme), f.sigLimit), decided: decided{near: elem.NewNearBatch()}}
	i := 0
	for i < len(halves) && halves[i].IsBucketMember() {
		i++
	}
	if err := d.resolveBuckets(halves[:i]); err != nil {
		return decided{err: err}
	}
	for ; i < len(halves); i += 2 {
		if i+1 >= len(halves) || halves[i].U != halves[i+1].U || halves[i].V != halves[i+1].V {
			return decided{err: fmt.Errorf("candidate pair %q/%q arrived incomplete (internal error)", halves[i].U, halves[i].V)}
		}
		u, v := halves[i], halves[i+1]
		if u.Node != u.U {
			u, v = v, u
		}
		d.reset(2)
		if _, _, err := d.decide(&scored{half: u, sig: -1}, &scored{half: v, sig: -1}); err != nil {
			return decided{err: err}
		}
	}
	d.near.Trim()
	d.counts.nanos = int64(time.Since(start))
	return d.decided
}

// compareHalves orders halves by pair (U, V), then end (Node): bucket members (U empty)
// first, by bucket, then id. Each comparison runs only when the ones before it tie (not
// cmp.Or, which would compare all three strings every time).
func compareHalves(a, b elem.Half) int {
	if c := strings.Compare(a.U, b.U); c != 0 {
		return c
	}
	if c := strings.Compare(a.V, b.V); c != 0 {
		return c
	}
	return strings.Compare(a.Node, b.Node)
}

// scored is a set being compared, with its MinHash signature's number in the decider's
// signatures once one was needed (-1 before).
type scored struct {
	half
	sig int
}

// decider decides the pairs of one partition and gathers its results.
type decider struct {
	f    *checkPairsFn
	sets *sets
	sigs signatures
	// held are the hashes of the last two sets loaded, as the first and the second of a
	// pair: a large bucket's pivot stays first while it meets every other member.
	held [2]struct {
		of      *scored
		hashes  []uint64
		scratch []uint64 // what a spilled set is read into (hashes may be an in-memory Half's)
	}
	decided
}

// reset makes the decider ready for n sets: it forgets the sets and signatures it
// holds, whose owners may no longer exist.
func (d *decider) reset(n int) {
	d.sigs.reset(n)
	d.held[0].of, d.held[1].of = nil, nil
}

// load returns x's hashes, held as the pair's i-th set.
func (d *decider) load(x *scored, i int) ([]uint64, error) {
	h := &d.held[i]
	if h.of != x {
		hashes, err := d.sets.load(&x.half, h.scratch)
		if err != nil {
			return nil, err
		}
		h.of, h.hashes = x, hashes
		if x.inFile() {
			h.scratch = hashes
		}
	}
	return h.hashes, nil
}

// decided is what deciding one partition yields: the verified edges, the similarities,
// and the counter sums (counted here, added to the counters once per partition).
type decided struct {
	out    []elem.Edge
	near   elem.NearBatch
	counts verifyCounts
	err    error
}

type verifyCounts struct {
	candidates, estimateDropped, falseCandidates, verified, compared, unresolved, nanos int64
}

// decide compares u and v (u's id first) and records the verdict.
func (d *decider) decide(u, v *scored) (sim float64, ok bool, err error) {
	f := d.f
	var hashes [2][]uint64
	var sig [2]int
	for i, x := range []*scored{u, v} {
		if hashes[i], err = d.load(x, i); err != nil {
			return 0, false, err
		}
		if !f.Containment {
			sig[i] = d.sigs.of(x, i, hashes[i])
		}
	}
	d.counts.candidates++
	if f.Containment {
		return d.decideContainment(u, v, hashes)
	}
	est := d.sigs.estimate(sig[0], sig[1])
	sim = est
	switch f.Mode {
	case None:
	case Estimate:
		ok = est >= f.Threshold
	default:
		// The exact Jaccard decides alone: the two sets are in hand, the merge is
		// cheap beside the re-read that brought them, and so no true pair that
		// shares a bucket is lost to the estimate's noise. How often the estimate
		// would have misled a filter is counted (estimate_filtered).
		sim = jaccard.Similarity(hashes[0], hashes[1])
		if est < f.Floor {
			d.counts.estimateDropped++
		}
		ok = sim >= f.Threshold
	}
	if f.Mode == None {
		ok = true
	}
	e := elem.Edge{U: u.Node, V: v.Node, Sim: sim}
	if elem.BothIndexed(e.U, e.V) {
		return sim, ok, nil // compared for a large bucket's resolution only (elem.BothIndexed)
	}
	d.near.Add(e, ok)
	if !ok {
		d.counts.falseCandidates++
		return sim, false, nil
	}
	d.counts.verified++
	e.ULen, e.VLen = u.Length, v.Length
	d.out = append(d.out, e)
	return sim, true, nil
}
