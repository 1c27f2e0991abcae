package lsh

import "math"

// gaussLegendre returns the n nodes and weights of Gauss–Legendre quadrature on
// [-1, 1], exact for polynomials of degree up to 2n-1. Nodes are found by Newton
// iteration on the Legendre recurrence (Golub–Welsch would also do; this is the
// classic, well-conditioned O(n²) method), accurate to a few ulps.
//
// The roots are refined a block of lanes at a time, each lane running exactly the
// arithmetic of one root on its own: the divisions of the recurrence then overlap
// instead of waiting for each other, and the results are those of one root at a time.
func gaussLegendre(n int) (nodes, weights []float64) {
	nodes = make([]float64, n)
	weights = make([]float64, n)
	half := (n + 1) / 2
	for first := 0; first < half; first += lanes {
		var x [lanes]float64
		var done [lanes]bool
		k := min(lanes, half-first)
		for l := range lanes {
			// Chebyshev-like initial guess for the i-th largest root.
			x[l] = math.Cos(math.Pi * (float64(first+l) + 0.75) / (float64(n) + 0.5))
			done[l] = l >= k
		}
		for iter := 0; iter < 100; iter++ {
			p0, p1 := legendre(n, &x)
			more := false
			for l := range k {
				if done[l] {
					continue
				}
				// p1 = P_n(x), p0 = P_{n-1}(x); derivative from the standard identity.
				dp := float64(n) * (x[l]*p1[l] - p0[l]) / (x[l]*x[l] - 1)
				dx := p1[l] / dp
				x[l] -= dx
				done[l] = math.Abs(dx) <= 1e-16*math.Max(1, math.Abs(x[l]))
				more = more || !done[l]
			}
			if !more {
				break
			}
		}
		// Recompute P_n' at the converged roots for the weights.
		p0, p1 := legendre(n, &x)
		for l := range k {
			dp := float64(n) * (x[l]*p1[l] - p0[l]) / (x[l]*x[l] - 1)
			w := 2 / ((1 - x[l]*x[l]) * dp * dp)
			i := first + l
			nodes[i], nodes[n-1-i] = x[l], -x[l]
			weights[i], weights[n-1-i] = w, w
		}
	}
	if n%2 == 1 {
		nodes[n/2] = 0 // exact by symmetry
	}
	return nodes, weights
}

const lanes = 8

// legendre returns P_{n-1}(x) and P_n(x) for each lane's x by the three-term
// recurrence.
func legendre(n int, x *[lanes]float64) (p0, p1 [lanes]float64) {
	for l := range lanes {
		p0[l], p1[l] = 1, x[l] // P_0, P_1
	}
	for k := 2; k <= n; k++ {
		fk := float64(k)
		for l := range lanes {
			p0[l], p1[l] = p1[l], ((2*fk-1)*x[l]*p1[l]-(fk-1)*p0[l])/fk
		}
	}
	return p0, p1
}
