package lsh

import "math"

// The exhaustive searches the fast ones replaced, kept as test oracles: they score every
// (b, r) with b·r ≤ num_perm, so they cost about num_perm²·ln(num_perm) exponentials
// and are only run at small num_perm.

// referenceSearch scores every (b, r) in datasketch's b-major order.
func referenceSearch(threshold float64, numPerm int, fpWeight, fnWeight float64) (best, second candidate) {
	q := newQuadrature(numPerm/2 + 1)
	scores := make([][]candidate, numPerm+1) // scores[b][r-1]
	for b := 1; b <= numPerm; b++ {
		scores[b] = make([]candidate, numPerm/b)
	}
	bs := make([]int, 0, numPerm)
	for r := 1; r <= numPerm; r++ {
		bs = bs[:0]
		for b := 1; b*r <= numPerm; b++ {
			bs = append(bs, b)
		}
		fps, fns := q.areas(threshold, r, bs)
		for i, b := range bs {
			scores[b][r-1] = candidate{
				Params: Params{Bands: b, Rows: r, FalsePositive: fps[i], FalseNegative: fns[i]},
				Error:  fps[i]*fpWeight + fns[i]*fnWeight,
			}
		}
	}
	best.Error, second.Error = math.Inf(1), math.Inf(1)
	for b := 1; b <= numPerm; b++ {
		for _, c := range scores[b] {
			switch {
			case c.Error < best.Error:
				best, second = c, best
			case c.Error < second.Error:
				second = c
			}
		}
	}
	return best, second
}

// referenceRecall scores every (b ≥ 2, r) that meets the target.
func referenceRecall(threshold float64, numPerm int, margin, target float64) (Params, bool) {
	s := min(1, threshold+margin)
	var best Params
	found := false
	for b := 2; b <= numPerm; b++ {
		for r := 1; b*r <= numPerm; r++ {
			if Detection(s, b, r) < target {
				continue
			}
			fp := FalsePositive(threshold, b, r)
			if !found || fp < best.FalsePositive {
				best = Params{Bands: b, Rows: r, FalsePositive: fp}
				found = true
			}
		}
	}
	if found {
		best.FalseNegative = FalseNegative(threshold, best.Bands, best.Rows)
	}
	return best, found
}

// referenceGaussLegendre is gaussLegendre one root at a time.
func referenceGaussLegendre(n int) (nodes, weights []float64) {
	nodes = make([]float64, n)
	weights = make([]float64, n)
	for i := range (n + 1) / 2 {
		// Chebyshev-like initial guess for the i-th largest root.
		x := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for iter := 0; iter < 100; iter++ {
			p0, p1 := 1.0, x // P_0, P_1
			for k := 2; k <= n; k++ {
				p0, p1 = p1, ((2*float64(k)-1)*x*p1-(float64(k)-1)*p0)/float64(k)
			}
			// p1 = P_n(x), p0 = P_{n-1}(x); derivative from the standard identity.
			dp = float64(n) * (x*p1 - p0) / (x*x - 1)
			dx := p1 / dp
			x -= dx
			if math.Abs(dx) <= 1e-16*math.Max(1, math.Abs(x)) {
				break
			}
		}
		// Recompute P_n' at the converged root for the weight.
		p0, p1 := 1.0, x
		for k := 2; k <= n; k++ {
			p0, p1 = p1, ((2*float64(k)-1)*x*p1-(float64(k)-1)*p0)/float64(k)
		}
		dp = float64(n) * (x*p1 - p0) / (x*x - 1)
		w := 2 / ((1 - x*x) * dp * dp)
		nodes[i], nodes[n-1-i] = x, -x
		weights[i], weights[n-1-i] = w, w
	}
	if n%2 == 1 {
		nodes[n/2] = 0 // exact by symmetry
	}
	return nodes, weights
}
