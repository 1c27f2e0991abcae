package elem

import (
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/neardup/neardup/internal/wire"
)

// Batch carries items of one element type between stages: one runner element per
// batch, where one per item would cost the runner an element each. Spilled, in the
// batches of a kind that spills (Codec.Spills), holds references to spill files whose
// records hold more of the items (Spiller).
type Batch[T any] struct {
	Items   []T
	Spilled []string
}

// BatchCoder is the Beam coder of Batch[T]: a Codec, or a coder of the whole batch.
type BatchCoder[T any] interface {
	Encode(Batch[T]) []byte
	Decode([]byte) (Batch[T], error)
}

// RegisterBatch registers T, Batch[T] with c as its coder, and the combiner Gather
// appends batches of T with; call it in init.
func RegisterBatch[T any](c BatchCoder[T]) {
	beam.RegisterType(reflect.TypeFor[T]())
	wire.RegisterCoder(c.Encode, c.Decode)
	register.Combiner1[Batch[T]](&appendFn[T]{})
}

// Gather groups a PCollection<KV<int, Batch[T]>> by partition, appending the batches
// of a partition into one, into PCollection<KV<int, Batch[T]>>.
func Gather[T any](s beam.Scope, col beam.PCollection) beam.PCollection {
	return beam.CombinePerKey(s, &appendFn[T]{}, col)
}

// appendFn is Gather's combiner, a struct rather than a function: Beam names a
// function by its symbol, which Append[T]'s instantiations would share.
type appendFn[T any] struct{}

func (*appendFn[T]) MergeAccumulators(a, b Batch[T]) Batch[T] {
	return Batch[T]{Items: append(a.Items, b.Items...), Spilled: append(a.Spilled, b.Spilled...)}
}

// Codec codes a batch item by item: its count, then each item (Put, Get); in the
// batches of a kind that spills, then the count and the references of Spilled.
type Codec[T any] struct {
	Put  func(*encoder, T)
	Get  func(*decoder) T
	Size func(T) int // about the bytes Put writes, so the batch is written in one buffer
	// Spills tells that the batches carry Spilled.
	Spills bool
	// Whole makes the decoded strings of a batch share one allocation
	// (wire.Decoder.Whole), which any of them keeps alive.
	Whole bool
}

func (c Codec[T]) Encode(b Batch[T]) []byte {
	size := 8
	for _, it := range b.Items {
		size += c.Size(it)
	}
	e := encoder{B: wire.EncodeAll(b.Items, size, c.Put)}
	switch {
	case c.Spills:
		putRefs(&e, b.Spilled)
	case len(b.Spilled) > 0:
		panic("elem: spill references in a batch of a kind that does not spill")
	}
	return e.B
}

func (c Codec[T]) Decode(data []byte) (Batch[T], error) {
	d := decoder{B: data}
	if c.Whole {
		d.Whole = string(data)
	}
	b := Batch[T]{Items: wire.DecodeItems(&d, c.Get)}
	if c.Spills {
		b.Spilled = getRefs(&d)
	}
	return b, d.End()
}

// putRefs writes a batch's spill references: their count, then each.
func putRefs(e *encoder, refs []string) {
	e.Uvarint(uint64(len(refs)))
	for _, r := range refs {
		e.Str(r)
	}
}

// getRefs reads what putRefs wrote.
func getRefs(d *decoder) []string {
	var refs []string
	for i, n := uint64(0), d.Uvarint(); i < n && d.Err == nil; i++ {
		refs = append(refs, d.Str())
	}
	return refs
}

// Append appends one item to a spilled run of them (Spiller.Extend): items one after
// the other, built in place in the spill buffer, so with no count before them. e is the
// encoder to use, a Spiller's own, so that spilling an item allocates nothing (Put is a
// function value: an encoder of Append's own would move to the heap); it starts empty,
// so an id is never front-coded against another run's, and is left empty, holding
// neither the run nor the item.
func (c Codec[T]) Append(e *encoder, run []byte, it T) []byte {
	*e = encoder{B: run}
	c.Put(e, it)
	run = e.B
	*e = encoder{}
	return run
}

// Items returns b's items followed by those of its spilled runs (Append); with spilled
// runs, in a slice of its own.
func (c Codec[T]) Items(b Batch[T]) ([]T, error) {
	if len(b.Spilled) == 0 {
		return b.Items, nil
	}
	items := slices.Clone(b.Items)
	err := EachSpilled(b.Spilled, func(rec []byte) (err error) {
		items, err = c.AppendRun(items, rec)
		return err
	})
	return items, err
}

// TakeItems is Items for the only reader of b's records: once they are read, their
// spilled runs' disk space is freed (ReleaseSpilled).
func (c Codec[T]) TakeItems(b Batch[T]) ([]T, error) {
	items, err := c.Items(b)
	if err == nil {
		ReleaseSpilled(b.Spilled)
	}
	return items, err
}

// AppendRun appends the items of a spilled run (Append) to items. The decoded strings
// share the run's one allocation.
func (c Codec[T]) AppendRun(items []T, run []byte) ([]T, error) {
	d := decoder{B: run, Whole: string(run)}
	for len(d.B) > 0 && d.Err == nil {
		items = append(items, c.Get(&d))
	}
	return items, d.Err
}
