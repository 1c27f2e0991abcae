// Package jaccard computes exact Jaccard similarity, the ground truth that decides
// every duplicate.
//
// MinHash estimates and LSH banding only propose candidate pairs; each candidate is
// confirmed here on the documents' shingle-hash sets (sorted, distinct 64-bit
// hashes as produced by shingle.Hashes), with a linear merge intersection rather
// than string sets or maps, so the cost is O(|a|+|b|) and allocation-free.
package jaccard

// Intersection returns |a ∩ b| for two ascending, duplicate-free slices.
// The result is unspecified if either slice is not sorted and distinct.
func Intersection(a, b []uint64) int {
	n := 0
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		switch {
		case x < y:
			i++
		case x > y:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// Similarity returns |a ∩ b| / |a ∪ b| for two ascending, duplicate-free hash sets.
//
// Two empty sets are identical and score 1.0, as in the seed's reference program
// (two empty documents are duplicates of each other); one empty and one non-empty
// set score 0.0. The division is a single float64(inter)/float64(union), so 2 of 3
// gives exactly 0.6666666666666666 as Python's 2/3 does.
func Similarity(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1.0
	}
	inter := Intersection(a, b)
	union := len(a) + len(b) - inter
	return float64(inter) / float64(union)
}
