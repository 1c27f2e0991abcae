package pipeline

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cespare/xxhash/v2"
)

// Partitions: every shuffle in the pipeline groups by a partition of the key (a hash of
// the id, set hash or band key modulo Config.Partitions) and gathers the partition's
// items with an append combiner. The runner lifts the combiner, so each bundle sends one
// element per partition instead of one per document or band key. Prism spends tens of
// microseconds per shuffled element whatever its size, so this is what makes a corpus
// of millions of documents fit one machine; on Dataflow it divides the shuffle's
// element count the same way. A partition holds about corpus/Partitions items in memory
// while it is processed, so --partitions should grow with the corpus.

func init() {
	register.Function2x1(appendLocs)
	register.Function2x1(appendSets)
	register.Function2x1(appendReads)
	register.Function2x1(appendBandEntries)
	register.Function2x1(appendEdges)
	register.Function2x1(appendHalves)
	register.Function2x1(appendFates)
}

func partOfString(s string, n int) int { return int(xxhash.Sum64String(s) % uint64(n)) }

// partOfHash spreads an already-uniform 64-bit hash; the high bits are used so that a
// band key's low bits, which also pick nothing else, are not reused.
func partOfHash(h uint64, n int) int { return int((h >> 32) % uint64(n)) }

func appendSets(a, b setBatch) setBatch    { return setBatch{append(a.Items, b.Items...)} }
func appendReads(a, b readBatch) readBatch { return readBatch{append(a.Items, b.Items...)} }
func appendLocs(a, b locBatch) locBatch    { return locBatch{append(a.Items, b.Items...)} }
func appendEdges(a, b edgeBatch) edgeBatch { return edgeBatch{append(a.Items, b.Items...)} }
func appendHalves(a, b halfBatch) halfBatch {
	return halfBatch{Items: append(a.Items, b.Items...), Spilled: append(a.Spilled, b.Spilled...)}
}
func appendFates(a, b fateBatch) fateBatch { return fateBatch{append(a.Items, b.Items...)} }

// gather groups a KV<int, batch> collection by partition with one of the append
// functions above.
func gather(s beam.Scope, appendFn any, col beam.PCollection) beam.PCollection {
	return beam.CombinePerKey(s, appendFn, col)
}
