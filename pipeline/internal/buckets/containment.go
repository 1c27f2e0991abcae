package buckets

import (
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// meeting keeps, in place, the entries of one --measure containment bucket that meet
// another of its entries (lsh.ContainmentScheme.Meets): a document whose size class
// has no partner in the band's groups (all the bucket's other documents are of its
// own class in a one-row band, say) is no candidate there, however full the bucket.
func meeting(s *lsh.ContainmentScheme, bucket []elem.BandEntry) []elem.BandEntry {
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

// containmentPairs calls emit(u, v) with u < v for every pair of a bucket's entries,
// at most maxAll of them, that meet (lsh.ContainmentScheme.Meets), and returns how many.
func containmentPairs(s *lsh.ContainmentScheme, bucket []elem.BandEntry, ids []string, emit func(u, v string)) int {
	n := 0
	for i := range bucket {
		for j := i + 1; j < len(bucket); j++ {
			if s.Meets(bucket[i].Key, bucket[j].Key) {
				emit(min(ids[i], ids[j]), max(ids[i], ids[j]))
				n++
			}
		}
	}
	return n
}
