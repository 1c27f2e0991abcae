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
// groups join: a one-row band full of documents of one class gives no candidate, a
// member of a class the band's group pairs with it one pair per band of the group, and
// documents too far apart in size none. A bucket whose pairs outnumber half its members
// is sent whole, as members, however small: each of its sets travels once.
func TestContainmentBucketPairsOnlyTheClassesItsGroupsJoin(t *testing.T) {
	s, err := lsh.ContainmentParams(0.8, 128, lsh.DefaultRecallMargin, lsh.DefaultRecallTarget)
	require.NoError(t, err)
	sig := make([]uint64, 128) // every document has the same signature: it shares every band
	entry := func(id string, size int) []elem.BandEntry {
		var out []elem.BandEntry
		for i, k := range s.AppendKeys(nil, sig, size) {
			out = append(out, elem.BandEntry{Key: k, Hash: uint64(size)<<8 | uint64(i), ID: id})
		}
		return out
	}
	run := func(docs map[string]int) (map[[2]string]int, map[string]int) {
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
		members := map[string]int{}
		for _, h := range r.members[0] {
			assert.True(t, h.IsBucketMember())
			members[h.Node]++
		}
		return pairs, members
	}
	pairs, members := run(map[string]int{"f0": 100, "f1": 101}) // class 6
	assert.Equal(t, map[[2]string]int{{"f0", "f1"}: s.Groups[0].Bands}, pairs, "one class: once per band of group 0")
	assert.Empty(t, members)
	pairs, members = run(map[string]int{"f0": 100, "big": 100 << 2}) // class 8: distance 2
	assert.Equal(t, map[[2]string]int{{"big", "f0"}: s.Groups[2].Bands}, pairs, "once per band of group 2")
	assert.Empty(t, members)
	pairs, members = run(map[string]int{"f0": 100, "huge": 100 << 6})
	assert.Empty(t, pairs, "beyond the last group: no pair")
	assert.Empty(t, members)

	same := map[string]int{}
	for i := range 10 {
		same[fmt.Sprintf("f%d", i)] = 100 + i
	}
	pairs, members = run(same)
	assert.Empty(t, pairs, "45 pairs for 10 sets: the bucket goes whole")
	assert.Len(t, members, 10)
	for id, n := range members {
		assert.Equal(t, s.Groups[0].Bands, n, "%s: once per bucket of group 0", id)
	}
}
