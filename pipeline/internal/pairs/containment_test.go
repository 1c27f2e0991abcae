package pairs

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/containment"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// The large buckets of a partition under containment decide exactly the pairs of each
// bucket that reach the threshold (a comparison of all its pairs), whether they are
// joined all together, in chunks that fit the memory share, or one by one, with a
// comparison budget too small for any bucket's pairs: a bucket larger than the share is
// joined in blocks, never left undecided. Together, a pair that several buckets hold is
// decided once.
func TestContainmentBucketsDecideEachBucketsPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	header := make([]uint64, 30)
	for i := range header {
		header[i] = r.Uint64()
	}
	sets := map[string][]uint64{}
	var ids []string
	for i := range 60 {
		s := slices.Clone(header[:r.IntN(len(header)+1)])
		for range []int{3, 20, 80, 300}[r.IntN(4)] {
			s = append(s, r.Uint64()%20000)
		}
		if i > 0 && r.IntN(2) == 0 { // a partial copy of an earlier set
			for _, h := range sets[ids[r.IntN(len(ids))]] {
				if r.Float64() < 0.9 {
					s = append(s, h)
				}
			}
		}
		slices.Sort(s)
		id := fmt.Sprintf("d%02d", i)
		ids, sets[id] = append(ids, id), slices.Compact(s)
	}
	const threshold = 0.8
	var batch elem.HalfBatch
	buckets := map[string][]string{} // by smallest id: the buckets that share it are one
	for range 25 {                   // buckets of 3 to 20 members, overlapping
		members := slices.Clone(ids)
		r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		members = members[:3+r.IntN(18)]
		slices.Sort(members)
		buckets[members[0]] = append(buckets[members[0]], members...)
	}
	want := map[[2]string]float64{}
	for pivot, members := range buckets {
		slices.Sort(members)
		members = slices.Compact(members) // each member asked for once (locateFn)
		for _, m := range members {
			batch.Items = append(batch.Items, elem.Half{V: pivot, Node: m, Hashes: sets[m], Length: int64(len(sets[m]))})
		}
		for i, a := range members {
			for _, b := range members[i+1:] {
				if sim := containment.Of(sets[a], sets[b]); sim >= threshold {
					u, v := a, b
					if containment.Contained(len(sets[a]), len(sets[b]), a, b) {
						u, v = b, a
					}
					want[[2]string{u, v}] = sim
				}
			}
		}
	}
	require.NotEmpty(t, want)
	for _, limit := range []int64{1 << 40, 3000, 0} { // shingles × joinBytesPerShingle / 2
		f := &checkPairsFn{Scheme: "affine32", Seed: 1, NumPerm: 64, Mode: Exact, Threshold: threshold, Comparisons: 1, BudgetFloor: 1, Containment: true}
		s, err := minhash.NewSigner(minhash.Scheme(f.Scheme), f.Seed, f.NumPerm)
		require.NoError(t, err)
		f.signer, f.sigLimit = s, limit*joinBytesPerShingle/2
		in := elem.HalfBatch{Items: slices.Clone(batch.Items)}
		r.Shuffle(len(in.Items), func(i, j int) { in.Items[i], in.Items[j] = in.Items[j], in.Items[i] })
		d := f.checkPartition(in)
		require.NoError(t, d.err)
		got := map[[2]string]float64{}
		for _, e := range d.out {
			got[[2]string{e.U, e.V}] = e.Sim
		}
		require.Equal(t, want, got, "limit %d", limit)
		require.Zero(t, d.counts.unresolved, "limit %d", limit)
		if limit == 1<<40 {
			require.Len(t, d.out, len(want), "each pair decided once")
		}
	}
}
