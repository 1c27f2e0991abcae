// Package candidates turns the members of one LSH bucket into the candidate pairs that
// exact verification will decide.
//
// It is pure Go with no Beam dependency: the pipeline's bucketing stage groups band
// entries by band key, keeps one id per distinct shingle set, and hands each bucket's ids
// to this package.
package candidates

// Star calls emit(hub, id) for every member of a bucket except the hub, the smallest id:
// k-1 candidates for k members, never k². The hub must be the smallest id, not whichever
// member arrives first, or the candidate set (and so the clusters) would depend on the
// runner's ordering. It returns the number of pairs emitted.
func Star(ids []string, emit func(u, v string)) int {
	if len(ids) < 2 {
		return 0
	}
	hub := 0
	for k, id := range ids {
		if id < ids[hub] {
			hub = k
		}
	}
	for k, id := range ids {
		if k != hub {
			emit(ids[hub], id)
		}
	}
	return len(ids) - 1
}
