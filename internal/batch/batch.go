// Package batch gathers a bundle's outputs by partition, so that a DoFn emits one element
// per partition now and then instead of one element per item. Prism and the SDK harness
// spend about the same time on an element whatever its size, so this removes most of
// the cost of moving small records between stages.
package batch

// ByPartition holds items per partition until a partition has Max of them (then that
// partition is emitted alone) or until Flush. Memory is bounded by partitions × max items.
type ByPartition[T any] struct {
	parts [][]T
	max   int
	// filled marks the partitions that have emitted a full batch: their next batch is
	// allocated whole, as it will likely fill too, instead of growing to it by copies.
	filled []bool
}

// New returns a buffer for partitions partitions of at most max items each.
func New[T any](partitions, max int) *ByPartition[T] {
	return &ByPartition[T]{parts: make([][]T, partitions), max: max, filled: make([]bool, partitions)}
}

// Add appends x to partition p, emitting the partition's batch when it is full. The
// emitted slice belongs to emit: the buffer never touches it again.
func (b *ByPartition[T]) Add(p int, x T, emit func(int, []T)) {
	if b.parts[p] == nil && b.filled[p] {
		b.parts[p] = make([]T, 0, b.max)
	}
	b.parts[p] = append(b.parts[p], x)
	if items := b.parts[p]; len(items) >= b.max {
		b.parts[p], b.filled[p] = nil, true
		emit(p, items)
	}
}

// Flush emits every non-empty partition in partition order and empties the buffer.
func (b *ByPartition[T]) Flush(emit func(int, []T)) {
	for p, items := range b.parts {
		if len(items) > 0 {
			emit(p, items)
			b.parts[p] = nil
		}
	}
}
