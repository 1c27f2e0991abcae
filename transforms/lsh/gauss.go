package lsh

import "math"

// gaussLegendre returns the n nodes and weights of Gauss–Legendre quadrature on
// [-1, 1], exact for polynomials of degree up to 2n-1. Nodes are found by Newton
// iteration on the Legendre recurrence (Golub–Welsch would also do; this is the
// classic, well-conditioned O(n²) method), accurate to a few ulps.
func gaussLegendre(n int) (nodes, weights []float64) {
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
