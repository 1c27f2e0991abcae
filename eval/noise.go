package eval

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/neardup/neardup/baseline"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/shingleset"
)

// Noise is the spread of a bucket's banded share (pairs sharing at least one LSH bucket)
// over the permutation seeds 1…Seeds, the documents and everything else fixed. The
// S-curve is a probability over the permutations for one pair; a corpus's pairs are not
// independent trials (copies of one text turn one pair of shingle sets into many document
// pairs, and a family of versions shares most shingles), so a bucket's share on one seed
// strays from the curve far beyond binomial noise. This spread, measured on the corpus
// itself, is what a measured recall has to be judged against.
type Noise struct {
	Seeds int     `json:"seeds"`
	Mean  float64 `json:"mean"` // ≈ the S-curve averaged over the bucket's pairs
	SD    float64 `json:"sd"`
	P5    float64 `json:"p5"`
	P95   float64 `json:"p95"`
	Below int     `json:"below"` // seeds whose share is lower than the run's own seed's
}

// Signing is how the run signed and banded its documents (stats.json's parameters).
type Signing struct {
	Scheme      minhash.Scheme
	NumPerm     int
	Seed        int64
	MaxShingles int
	Bands, Rows int
}

// signing reads the run's signing parameters from stats.json.
func signing(st *Stats, bands, rows int) (Signing, error) {
	scheme, ok1 := st.StringParam("scheme")
	numPerm, ok2 := st.IntParam("num_perm")
	seed, ok3 := st.IntParam("seed")
	maxShingles, _ := st.IntParam("max_shingles")
	if !ok1 || !ok2 || !ok3 || bands <= 0 || rows <= 0 {
		return Signing{}, fmt.Errorf("-noise-seeds needs the run's scheme, num_perm, seed, b and r from stats.json")
	}
	return Signing{Scheme: minhash.Scheme(scheme), NumPerm: numPerm, Seed: int64(seed),
		MaxShingles: maxShingles, Bands: bands, Rows: rows}, nil
}

// AddBandNoise fills each bucket's Banded and BandedLost (under the run's own seed) and
// Noise (over seeds 1…seeds) for the exact pairs RecallBySimilarity bucketed. sets holds
// every document's full shingle-hash set by id (baseline.Load's); they are capped as the
// run capped them. Signing and banding are exactly the pipeline's (Signer.SignInto,
// lsh.BandKey), so a pair counted as banded did share a bucket in the run.
func AddBandNoise(buckets []Bucket, pairs []baseline.IDPair, sets map[string][]uint64, result Clusters,
	sg Signing, seeds, workers int) error {
	labels, err := result.labels()
	if err != nil {
		return err
	}
	if len(buckets) == 0 {
		return nil
	}
	lo, width := buckets[0].Lo, buckets[0].Hi-buckets[0].Lo
	// The bucketed pairs as document indexes, and the documents they touch.
	type ipair struct {
		a, b, bucket int
		found        bool
	}
	var ps []ipair
	var docs [][]uint64
	index := map[string]int{}
	doc := func(id string) (int, error) {
		if i, ok := index[id]; ok {
			return i, nil
		}
		h, ok := sets[id]
		if !ok {
			return 0, fmt.Errorf("exact pair id %q is not in the input: is -input the corpus the pairs were joined on?", id)
		}
		h, _ = shingleset.Cap(h, sg.MaxShingles)
		index[id] = len(docs)
		docs = append(docs, h)
		return len(docs) - 1, nil
	}
	for _, p := range pairs {
		k, ok := bucketOf(p.Similarity, lo, width, len(buckets))
		if !ok {
			continue
		}
		a, err := doc(p.A)
		if err != nil {
			return err
		}
		b, err := doc(p.B)
		if err != nil {
			return err
		}
		la, okA := labels[p.A]
		lb, okB := labels[p.B]
		ps = append(ps, ipair{a: a, b: b, bucket: k, found: okA && okB && la == lb})
	}

	// banded signs every document under one seed and counts, per bucket, the pairs
	// that share a band (equal keys in the same band: one LSH bucket) and, of those,
	// the pairs the result did not co-cluster.
	banded := func(seed int64) (shared, lost []int64, err error) {
		signer, err := minhash.NewSigner(sg.Scheme, seed, sg.NumPerm)
		if err != nil {
			return nil, nil, err
		}
		sig := make([]uint64, sg.NumPerm)
		keys := make([]uint64, len(docs)*sg.Bands)
		for d, h := range docs {
			signer.SignInto(sig, h)
			for band := range sg.Bands {
				keys[d*sg.Bands+band] = lsh.BandKey(sig, band, sg.Rows)
			}
		}
		shared, lost = make([]int64, len(buckets)), make([]int64, len(buckets))
		for _, p := range ps {
			for band := range sg.Bands {
				if keys[p.a*sg.Bands+band] == keys[p.b*sg.Bands+band] {
					shared[p.bucket]++
					if !p.found {
						lost[p.bucket]++
					}
					break
				}
			}
		}
		return shared, lost, nil
	}

	own, lost, err := banded(sg.Seed)
	if err != nil {
		return err
	}
	for i := range buckets {
		buckets[i].Banded, buckets[i].BandedLost = &own[i], &lost[i]
	}
	if seeds <= 0 {
		return nil
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	perSeed := make([][]int64, seeds)
	errs := make([]error, seeds)
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, seeds) {
		wg.Go(func() {
			for s := range next {
				perSeed[s], _, errs[s] = banded(int64(s + 1))
			}
		})
	}
	for s := range seeds {
		next <- s
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	for i := range buckets {
		if buckets[i].Pairs == 0 {
			continue
		}
		share := make([]float64, seeds)
		for s := range seeds {
			share[s] = float64(perSeed[s][i]) / float64(buckets[i].Pairs)
		}
		buckets[i].Noise = spread(share, float64(own[i])/float64(buckets[i].Pairs))
	}
	return nil
}

// spread summarizes per-seed shares: mean, standard deviation, the nearest-rank 5th and
// 95th percentiles, and how many lie below the run's share.
func spread(xs []float64, run float64) *Noise {
	s := slices.Sorted(slices.Values(xs))
	var sum, sq float64
	for _, x := range s {
		sum += x
	}
	mean := sum / float64(len(s))
	for _, x := range s {
		sq += (x - mean) * (x - mean)
	}
	rank := func(q float64) float64 { return s[max(0, int(math.Ceil(q*float64(len(s))))-1)] }
	n := &Noise{Seeds: len(s), Mean: mean, P5: rank(0.05), P95: rank(0.95)}
	if len(s) > 1 {
		n.SD = math.Sqrt(sq / float64(len(s)-1))
	}
	for _, x := range s {
		if x < run {
			n.Below++
		}
	}
	return n
}
