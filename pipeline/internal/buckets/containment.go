package buckets

import (
	"slices"

	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// meeting keeps, in place, the entries of one --measure containment bucket that meet
// another of its entries (lsh.ContainmentScheme.Meets): a document whose size class
// has no partner in the band's groups (all the bucket's other documents are of its
// own class in a one-row band, say) is no candidate there, however full the bucket.
func meeting(s *lsh.ContainmentScheme, bucket []elem.BandEntry) []elem.BandEntry {
	if lsh.IsSample(bucket[0].Key) {
		return sampleMeeting(s, bucket)
	}
	var count [lsh.Classes]int
	for _, e := range bucket {
		count[lsh.Class(e.Key)]++
	}
	out := bucket[:0]
	for _, e := range bucket {
		c := lsh.Class(e.Key)
		for o := range lsh.Classes {
			if count[o] > 0 && (o != c || count[o] > 1) && s.Meets(e.Key, lsh.WithClass(e.Key, o)) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// sampleMeeting is meeting for a bucket of sample keys, which are in key order.
func sampleMeeting(s *lsh.ContainmentScheme, bucket []elem.BandEntry) []elem.BandEntry {
	if len(bucket) < 2 {
		return bucket
	}
	keys := make([]uint64, len(bucket))
	for i, e := range bucket {
		keys[i] = e.Key
	}
	key := func(j int) uint64 { return keys[j] }
	out := bucket[:0]
	for i, e := range bucket {
		if s.SampleMeetsAny(len(keys), key, i) {
			out = append(out, e)
		}
	}
	return out
}

// containmentRoute sends a --measure containment bucket's candidates: the pairs of its
// entries that meet (lsh.ContainmentScheme.Meets), emitted as edges (all true), when
// they are few; otherwise, or when it holds more than maxAll sets, its members, sorted
// by id (all false), for Verify to join whole (containment.Join). Each edge brings both
// its sets to verification and each member only its own, so a bucket goes by members
// once its pairs outnumber half its members: files that share a licence fill small
// buckets whose pairs are mostly false and, as members, are never compared at all.
func containmentRoute(s *lsh.ContainmentScheme, bucket []elem.BandEntry, ids []string, maxAll int, emit func(u, v string)) (n int, all bool) {
	if len(ids) <= maxAll && 2*containmentPairs(s, bucket, ids, nil) <= len(ids) {
		return containmentPairs(s, bucket, ids, emit), true
	}
	slices.Sort(ids)
	return 0, false
}

// containmentPairs calls emit(u, v) with u < v, when emit is not nil, for every pair of a
// bucket's entries that meet (lsh.ContainmentScheme.Meets), and returns how many.
func containmentPairs(s *lsh.ContainmentScheme, bucket []elem.BandEntry, ids []string, emit func(u, v string)) int {
	n := 0
	for i := range bucket {
		for j := i + 1; j < len(bucket); j++ {
			if s.Meets(bucket[i].Key, bucket[j].Key) {
				if emit != nil {
					emit(min(ids[i], ids[j]), max(ids[i], ids[j]))
				}
				n++
			}
		}
	}
	return n
}
