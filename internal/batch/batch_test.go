package batch

import (
	"slices"
	"testing"
)

// Every item is emitted exactly once, in its partition, in the order added; no emitted
// batch exceeds the maximum; Flush leaves the buffer empty for the next bundle.
func TestByPartition(t *testing.T) {
	b := New[int](3, 4)
	got := map[int][]int{}
	var sizes []int
	emit := func(p int, items []int) {
		got[p] = append(got[p], items...)
		sizes = append(sizes, len(items))
	}
	for i := range 100 {
		b.Add(i%3, i, emit)
	}
	b.Flush(emit)
	for p := range 3 {
		var want []int
		for i := p; i < 100; i += 3 {
			want = append(want, i)
		}
		if !slices.Equal(got[p], want) {
			t.Fatalf("partition %d: %v, want %v", p, got[p], want)
		}
	}
	if m := slices.Max(sizes); m > 4 {
		t.Fatalf("batch of %d items, max 4", m)
	}
	n := len(sizes)
	b.Flush(emit)
	if len(sizes) != n {
		t.Fatal("second Flush emitted again")
	}
}

// An emitted slice is never written again: appending to it after more Adds must not
// change what the buffer emits later (the runner's combiner may grow it in place).
func TestEmittedSliceIsOwnedByEmit(t *testing.T) {
	b := New[int](1, 2)
	var first []int
	var all [][]int
	emit := func(_ int, items []int) {
		if first == nil {
			first = items
		}
		all = append(all, items)
	}
	b.Add(0, 1, emit)
	b.Add(0, 2, emit)
	first = append(first[:2], 99) // may write into spare capacity
	b.Add(0, 3, emit)
	b.Flush(emit)
	if len(all) != 2 || all[1][0] != 3 {
		t.Fatalf("batches %v", all)
	}
}

// BenchmarkAddBandEntries adds items shaped as band entries (two words and an id)
// spread over 256 partitions, batches of 4,096: the first stage's band entries on an
// engine.
func BenchmarkAddBandEntries(b *testing.B) {
	type entry struct {
		key, hash uint64
		id        string
	}
	buf := New[entry](256, 4096)
	n := 0
	emit := func(_ int, items []entry) { n += len(items) }
	for i := 0; b.Loop(); i++ {
		buf.Add(int(uint64(i)*0x9E3779B97F4A7C15>>56), entry{key: uint64(i), id: "doc-0000001"}, emit)
	}
	buf.Flush(emit)
}
