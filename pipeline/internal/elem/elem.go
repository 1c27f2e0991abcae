// Package elem holds the elements that flow between the dedup pipeline's stages: each
// element type in a file of its own with its Codec, carried in a Batch that
// RegisterBatch gives a coder and a combiner, and the partitioning, spilling and
// pooling every stage shares. It imports no stage.
//
// Partitions: every shuffle groups by a partition of the key (a hash of the id, set
// hash or band key modulo the partition count) and gathers the partition's items with
// an append combiner (Gather). The runner lifts the combiner, so each bundle sends one
// element per partition instead of one per document or band key. A partition holds
// about corpus/partitions items in memory while it is processed.
//
// The batches have coders of their own (internal/wire): each batch is written in one
// pass, hashes as fixed 8-byte words, where Beam's row coder would encode field by
// field through reflection.
package elem

import (
	"slices"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/wire"
)

// MetricsNS is the namespace of the pipeline's counters (stats.json reads it).
const MetricsNS = "neardup"

// BatchItems is the most items one emitted batch holds.
const BatchItems = 4096

// ShuffleBytes bounds, about, the encoded bytes of one batch a stage sends through a
// runner's shuffle when it does not spill, however large the corpus or long its
// documents: an engine sorts each element whole in a sort buffer of a fixed size
// (Flink: "Record too large"). Split cuts a partition's items to it.
const ShuffleBytes = 256 << 10

// Split passes items to emit in consecutive runs whose sizes add up to at most
// ShuffleBytes (an item larger than that alone).
func Split[T any](items []T, size func(T) int, emit func([]T)) {
	lo, n := 0, 0
	for i, it := range items {
		s := size(it)
		if i > lo && n+s > ShuffleBytes {
			emit(items[lo:i])
			lo, n = i, 0
		}
		n += s
	}
	if lo < len(items) {
		emit(items[lo:])
	}
}

type (
	encoder = wire.Encoder
	decoder = wire.Decoder
)

// PartOfString is the partition of an id (or any string key) among n.
func PartOfString(s string, n int) int { return int(xxhash.Sum64String(s) % uint64(n)) }

// PartOfHash spreads an already-uniform 64-bit hash; the high bits are used so that a
// band key's low bits, which also pick nothing else, are not reused.
func PartOfHash(h uint64, n int) int { return int((h >> 32) % uint64(n)) }

func SortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
