// Package elem holds the elements that flow between the dedup pipeline's stages: each
// element type with its batch, its coder and its combiner, in one file per type, and
// the partitioning, spilling and pooling every stage shares. It imports no stage.
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

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/wire"
)

// MetricsNS is the namespace of the pipeline's counters (stats.json reads it).
const MetricsNS = "neardup"

// BatchItems is the most items one emitted batch holds.
const BatchItems = 4096

type (
	encoder = wire.Encoder
	decoder = wire.Decoder
)

// PartOfString is the partition of an id (or any string key) among n.
func PartOfString(s string, n int) int { return int(xxhash.Sum64String(s) % uint64(n)) }

// PartOfHash spreads an already-uniform 64-bit hash; the high bits are used so that a
// band key's low bits, which also pick nothing else, are not reused.
func PartOfHash(h uint64, n int) int { return int((h >> 32) % uint64(n)) }

// Gather groups a PCollection<KV<int, B>> by partition with appendFn, one of the
// Append combiners of this package (func(B, B) B), into PCollection<KV<int, B>>.
func Gather(s beam.Scope, appendFn any, col beam.PCollection) beam.PCollection {
	return beam.CombinePerKey(s, appendFn, col)
}

func SortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// EncodeSpillable and DecodeSpillable frame a batch that may hold spill references
// (Spiller) after its items.
func EncodeSpillable[T any](items []T, refs []string, size int, put func(*encoder, T)) []byte {
	e := encoder{B: wire.EncodeAll(items, size+8, put)}
	e.Uvarint(uint64(len(refs)))
	for _, r := range refs {
		e.Str(r)
	}
	return e.B
}

func DecodeSpillable[T any](b []byte, get func(*decoder) T) ([]T, []string, error) {
	return decodeSpillableFrom(&decoder{B: b}, get)
}

func decodeSpillableFrom[T any](d *decoder, get func(*decoder) T) ([]T, []string, error) {
	items := wire.DecodeItems(d, get)
	var refs []string
	for i, n := uint64(0), d.Uvarint(); i < n && d.Err == nil; i++ {
		refs = append(refs, d.Str())
	}
	return items, refs, d.End()
}

// AppendRun appends the items of a spilled record to items: items one after the other,
// built in place in the spill buffer (AppendBand, AppendHalf), so with no count before
// them.
func AppendRun[T any](items []T, b []byte, get func(*decoder) T) ([]T, error) {
	d := decoder{B: b, Whole: string(b)}
	for len(d.B) > 0 && d.Err == nil {
		items = append(items, get(&d))
	}
	return items, d.Err
}
