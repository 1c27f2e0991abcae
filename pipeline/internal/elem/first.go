package elem

import (
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/internal/tally"
	"github.com/neardup/neardup/internal/wire"
	"github.com/neardup/neardup/record"
)

// First is what the first stage (reading, locating, featurizing) sends to one
// partition, every kind in one element: locations by id partition, set keys by set
// partition, band entries by band-key partition, and, under any partition, the
// stage's counts and rejected records. A First usually holds one kind.
//
// The first stage then has one output, gathered once (SplitFirst): Flink's batch
// translator writes a fused stage's whole output once to each output it has, and a
// stage with an output per kind wrote it once per kind.
type First struct {
	Locs     LocBatch
	Sets     SetBatch
	Bands    BandBatch
	Counts   []tally.Count
	Rejected []record.Rejected
}

func init() {
	beam.RegisterType(reflect.TypeFor[First]())
	wire.RegisterCoder(encodeFirst, decodeFirst)
	register.Combiner1[First](&appendFirstFn{})
	register.DoFn1x2[record.Rejected, int, First](&rejectedFirstFn{})
	register.Function1x2(countFirst)
	register.DoFn7x0[int, First, func(int, LocBatch), func(int, SetBatch), func(int, BandBatch), func(tally.Count), func(record.Rejected)](&splitFirstFn{})
	register.Emitter2[int, First]()
	register.Emitter2[int, LocBatch]()
	register.Emitter2[int, SetBatch]()
	register.Emitter2[int, BandBatch]()
	register.Emitter1[tally.Count]()
	register.Emitter1[record.Rejected]()
}

// encodeFirst writes each kind's batch with its own coder, length first, then the
// counts and the rejected records.
func encodeFirst(f First) []byte {
	e := encoder{}
	for _, b := range [][]byte{locCoder{}.Encode(f.Locs), Sets.Encode(f.Sets), Bands.Encode(f.Bands)} {
		e.Uvarint(uint64(len(b)))
		e.B = append(e.B, b...)
	}
	e.Uvarint(uint64(len(f.Counts)))
	for _, c := range f.Counts {
		e.Str(c.Name)
		e.Varint(c.N)
		e.Bool(c.Max)
	}
	e.Uvarint(uint64(len(f.Rejected)))
	for _, r := range f.Rejected {
		e.Str(r.File)
		e.Varint(r.Line)
		e.Str(r.Reason)
	}
	return e.B
}

func decodeFirst(data []byte) (First, error) {
	d := decoder{B: data}
	var f First
	var err error
	part := func() []byte {
		n := d.Uvarint()
		if d.Err != nil || n > uint64(len(d.B)) {
			d.Fail("a First's batch")
			return nil
		}
		b := d.B[:n]
		d.B = d.B[n:]
		return b
	}
	if b := part(); d.Err == nil {
		f.Locs, err = locCoder{}.Decode(b)
	}
	if b := part(); d.Err == nil && err == nil {
		f.Sets, err = Sets.Decode(b)
	}
	if b := part(); d.Err == nil && err == nil {
		f.Bands, err = Bands.Decode(b)
	}
	if err != nil {
		return First{}, err
	}
	for i, n := uint64(0), d.Uvarint(); i < n && d.Err == nil; i++ {
		f.Counts = append(f.Counts, tally.Count{Name: d.Str(), N: d.Varint(), Max: d.Bool()})
	}
	for i, n := uint64(0), d.Uvarint(); i < n && d.Err == nil; i++ {
		f.Rejected = append(f.Rejected, record.Rejected{File: d.Str(), Line: d.Varint(), Reason: d.Str()})
	}
	return f, d.End()
}

// appendFirstFn gathers Firsts kind by kind; band entries as AppendBands does.
type appendFirstFn struct{}

func (*appendFirstFn) MergeAccumulators(a, b First) First {
	return First{
		Locs:     LocBatch{Items: append(a.Locs.Items, b.Locs.Items...), Spilled: append(a.Locs.Spilled, b.Locs.Spilled...)},
		Sets:     SetBatch{Items: append(a.Sets.Items, b.Sets.Items...), Spilled: append(a.Sets.Spilled, b.Sets.Spilled...)},
		Bands:    AppendBands(a.Bands, b.Bands),
		Counts:   append(a.Counts, b.Counts...),
		Rejected: append(a.Rejected, b.Rejected...),
	}
}

// Firsts are the first stage's parts, each gathered by partition: one element per
// partition that has any.
type Firsts struct {
	Locs     beam.PCollection // PCollection<KV<int, LocBatch>>
	Sets     beam.PCollection // PCollection<KV<int, SetBatch>>
	Bands    beam.PCollection // PCollection<KV<int, BandBatch>>
	Counts   beam.PCollection // PCollection<tally.Count>
	Rejected beam.PCollection // PCollection<record.Rejected>
}

// SplitFirst gathers PCollection<KV<int, First>> by partition, in one grouping, and
// splits each partition into its kinds (Firsts). The stages that read them are fused
// with the split, so it adds no exchange of its own.
func SplitFirst(s beam.Scope, first beam.PCollection) Firsts {
	s = s.Scope("elem.SplitFirst")
	out := beam.ParDoN(s, &splitFirstFn{}, beam.CombinePerKey(s, &appendFirstFn{}, first))
	return Firsts{Locs: out[0], Sets: out[1], Bands: out[2], Counts: out[3], Rejected: out[4]}
}

// splitFirstFn passes on each kind of a gathered partition, the kinds it holds only.
type splitFirstFn struct{}

func (*splitFirstFn) ProcessElement(p int, f First, locs func(int, LocBatch), sets func(int, SetBatch), bands func(int, BandBatch),
	counts func(tally.Count), rejected func(record.Rejected)) {
	if len(f.Locs.Items) > 0 || len(f.Locs.Spilled) > 0 {
		locs(p, f.Locs)
	}
	if len(f.Sets.Items) > 0 || len(f.Sets.Spilled) > 0 {
		sets(p, f.Sets)
	}
	if len(f.Bands.Items) > 0 || len(f.Bands.Spilled) > 0 {
		bands(p, f.Bands)
	}
	for _, c := range f.Counts {
		counts(c)
	}
	for _, r := range f.Rejected {
		rejected(r)
	}
}

// FirstOf adds a reader's rejected records, PCollection<record.Rejected>, and counts,
// PCollection<tally.Count>, to the first stage's PCollection<KV<int, First>>, as one
// PCollection<KV<int, First>>. All three must come from the same fused stage, where the
// flatten is fused too: a flatten of collections made in different stages is an
// exchange of its own on Flink.
func FirstOf(s beam.Scope, first, rejected, counts beam.PCollection, partitions int) beam.PCollection {
	s = s.Scope("elem.FirstOf")
	r := beam.ParDo(s, &rejectedFirstFn{Partitions: partitions}, rejected)
	return beam.Flatten(s, first, r, beam.ParDo(s, countFirst, counts))
}

// rejectedFirstFn carries each rejected record under its file's partition.
type rejectedFirstFn struct{ Partitions int }

func (f *rejectedFirstFn) ProcessElement(r record.Rejected) (int, First) {
	return PartOfString(r.File, f.Partitions), First{Rejected: []record.Rejected{r}}
}

// countFirst carries one count under partition 0: a bundle's counts are a few.
func countFirst(c tally.Count) (int, First) { return 0, First{Counts: []tally.Count{c}} }
