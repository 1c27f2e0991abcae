package buckets

import (
	"fmt"
	"testing"

	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Under containment a bucket pairs only the documents whose size classes its band's
// groups join: a one-row band full of documents of one class (files that share a
// licence and a size) gives no candidate, a member of a class the band's group pairs
// with them gives one pair per document, and documents too far apart in size none.
func TestContainmentBucketPairsOnlyTheClassesItsGroupsJoin(t *testing.T) {
	s, err := lsh.ContainmentParams(0.8, 128, lsh.DefaultRecallMargin, lsh.DefaultRecallTarget)
	require.NoError(t, err)
	sig := make([]uint64, 128) // every document has the same signature: it shares every band
	entry := func(id string, size int) []elem.BandEntry {
		var out []elem.BandEntry
		for i, k := range s.AppendKeys(nil, sig, size) {
			out = append(out, elem.BandEntry{Key: k, Hash: uint64(size), Check: uint64(i), ID: id})
		}
		return out
	}
	run := func(docs map[string]int) map[[2]string]int {
		var b elem.BandBatch
		for id, size := range docs {
			b.Items = append(b.Items, entry(id, size)...)
		}
		r := bucketPartition(b, 20, 1, &s)
		require.NoError(t, r.err)
		pairs := map[[2]string]int{}
		for _, e := range r.edges[0] {
			pairs[[2]string{e.U, e.V}]++
		}
		return pairs
	}
	same := map[string]int{}
	for i := range 10 {
		same[fmt.Sprintf("f%d", i)] = 100 + i // class 6
	}
	pairs := run(same)
	assert.Len(t, pairs, 45, "one class: the two-row group pairs them")
	for p, n := range pairs {
		assert.Equal(t, s.Groups[0].Bands, n, "%v: once per band of group 0", p)
	}
	same["big"] = 100 << 2 // class 8: distance 2
	pairs = run(same)
	assert.Len(t, pairs, 55)
	assert.Equal(t, s.Groups[2].Bands, pairs[[2]string{"big", "f0"}], "once per band of group 2")
	delete(same, "big")
	same["huge"] = 100 << 6
	assert.Len(t, run(same), 45, "beyond the last group: no pair")
}
