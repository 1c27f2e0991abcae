package eval

import (
	"math"

	"github.com/neardup/neardup/baseline"
	"github.com/neardup/neardup/lsh"
)

// Bucket is the recall of exact pairs whose similarity lies in [Lo, Hi) (the last
// bucket includes 1.0): a pair is found when both documents are in the same result
// cluster. Predicted is the LSH S-curve 1-(1-s^r)^b averaged over the bucket's pairs'
// similarities (the midpoint when the bucket is empty), the share of them banding alone
// is expected to propose; nil when b and r are unknown. Averaging over the actual
// similarities matters: pairs crowd the bucket's lower end, where the curve is lowest.
type Bucket struct {
	Lo        float64  `json:"lo"`
	Hi        float64  `json:"hi"`
	Pairs     int64    `json:"pairs"`
	Found     int64    `json:"found"`
	Recall    float64  `json:"recall"`
	Predicted *float64 `json:"predicted,omitempty"`

	// With the corpus at hand (AddBandNoise): Banded pairs shared at least one LSH
	// bucket under the run's own permutations, BandedLost of them were not co-clustered
	// (0 unless the candidate stage loses pairs), and Noise is the banded share's spread
	// over other seeds, the band a measured recall must fall in.
	Banded     *int64 `json:"banded,omitempty"`
	BandedLost *int64 `json:"banded_lost,omitempty"`
	Noise      *Noise `json:"noise,omitempty"`
}

// bucketEps keeps a similarity that lands a rounding error below a boundary it
// equals (0.75 computed as 0.7499999999999999) in the bucket it belongs to.
const bucketEps = 1e-9

// RecallBySimilarity buckets the exact pairs with similarity ≥ lo into buckets of
// the given width up to 1.0 and counts those found co-clustered in result. b and r
// are the LSH bands and rows; 0 leaves the prediction out.
func RecallBySimilarity(pairs []baseline.IDPair, result Clusters, lo, width float64, b, r int) ([]Bucket, error) {
	labels, err := result.labels()
	if err != nil {
		return nil, err
	}
	k := max(1, int(math.Round((1-lo)/width)))
	out := make([]Bucket, k)
	for i := range out {
		out[i].Lo = round9(lo + float64(i)*width)
		out[i].Hi = round9(lo + float64(i+1)*width)
	}
	out[k-1].Hi = 1
	sums := make([]float64, k)
	for _, p := range pairs {
		i, ok := bucketOf(p.Similarity, lo, width, k)
		if !ok {
			continue
		}
		out[i].Pairs++
		if b > 0 && r > 0 {
			sums[i] += lsh.Detection(p.Similarity, b, r)
		}
		la, okA := labels[p.A]
		lb, okB := labels[p.B]
		if okA && okB && la == lb {
			out[i].Found++
		}
	}
	for i := range out {
		out[i].Recall = ratioOr1(out[i].Found, out[i].Pairs)
		if b > 0 && r > 0 {
			v := lsh.Detection((out[i].Lo+out[i].Hi)/2, b, r)
			if out[i].Pairs > 0 {
				v = sums[i] / float64(out[i].Pairs)
			}
			out[i].Predicted = &v
		}
	}
	return out, nil
}

// bucketOf is the index of the bucket holding similarity s, false below lo.
func bucketOf(s, lo, width float64, k int) (int, bool) {
	if s < lo-bucketEps {
		return 0, false
	}
	return min(k-1, int(math.Floor((s-lo)/width+bucketEps))), true
}

// round9 removes the float noise of lo + i·width (0.7500000000000001) from labels.
func round9(x float64) float64 { return math.Round(x*1e9) / 1e9 }
