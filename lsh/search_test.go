package lsh

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gridNumPerm is the num_perm values the fast searches are checked at against the
// exhaustive ones; NEARDUP_LSH_GRID_MAX adds powers of two up to it (the exhaustive
// searches grow with the cube of num_perm, so the default stays small).
func gridNumPerm(t *testing.T) []int {
	ns := []int{2, 3, 4, 5, 7, 8, 10, 13, 16, 17, 24, 32, 50, 64, 100, 127, 128, 200, 256}
	if v := os.Getenv("NEARDUP_LSH_GRID_MAX"); v != "" {
		limit, err := strconv.Atoi(v)
		require.NoError(t, err)
		for n := 512; n <= limit; n *= 2 {
			ns = append(ns, n)
		}
	}
	return ns
}

var gridThresholds = []float64{0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.99, 1}

// The pruned search returns what scoring every (b, r) returns, best and runner-up,
// bit for bit, over a grid of num_perm, thresholds and weights.
func TestSearchMatchesExhaustive(t *testing.T) {
	weights := [][2]float64{{0.5, 0.5}, {0, 1}, {1, 0}, {0.3, 0.7}, {0.9, 0.1}}
	for _, n := range gridNumPerm(t) {
		for _, th := range gridThresholds {
			for _, w := range weights {
				name := fmt.Sprintf("n=%d t=%v w=%v", n, th, w)
				wantBest, wantSecond := referenceSearch(th, n, w[0], w[1])
				s := newSearcher(th, n, w[0], w[1])
				s.run()
				require.Equal(t, wantBest, s.best, name)
				require.Equal(t, wantSecond, s.second, name)
			}
		}
	}
}

// The recall search chooses what scoring every qualifying (b, r) chooses.
func TestRecallParamsMatchExhaustive(t *testing.T) {
	for _, n := range gridNumPerm(t) {
		for _, th := range gridThresholds {
			for _, target := range []float64{DefaultRecallTarget, 0.9} {
				name := fmt.Sprintf("n=%d t=%v target=%v", n, th, target)
				want, found := referenceRecall(th, n, DefaultRecallMargin, target)
				got, err := RecallParams(th, n, DefaultRecallMargin, target)
				if !found {
					require.ErrorIs(t, err, ErrTooFewBands, name)
					continue
				}
				require.NoError(t, err, name)
				require.Equal(t, want, got, name)
			}
		}
	}
}

// The pruning is what makes the search fast: at 1024 permutations it scores a small
// share of the schemes (about 7,000 with b·r ≤ 1024).
func TestSearchPrunes(t *testing.T) {
	all := 0
	for r := 1; r <= 1024; r++ {
		all += 1024 / r
	}
	for _, th := range []float64{0.5, 0.8, 0.95} {
		s := newSearcher(th, 1024, 0.5, 0.5)
		s.run()
		assert.Less(t, s.evaluated, all/10, "t=%v: scored %d of %d", th, s.evaluated, all)
	}
}

// Every allowed num_perm is accepted and gets a scheme; one more is refused.
func TestMaxNumPerm(t *testing.T) {
	p, err := OptimalParams(0.8, MaxNumPerm, 0.5, 0.5)
	require.NoError(t, err)
	assert.LessOrEqual(t, p.Bands*p.Rows, MaxNumPerm)
	p, err = RecallParams(0.8, MaxNumPerm, DefaultRecallMargin, DefaultRecallTarget)
	require.NoError(t, err)
	assert.LessOrEqual(t, p.Bands*p.Rows, MaxNumPerm)
	assert.GreaterOrEqual(t, Detection(0.85, p.Bands, p.Rows), DefaultRecallTarget)

	_, err = OptimalParams(0.8, MaxNumPerm+1, 0.5, 0.5)
	require.ErrorContains(t, err, "maximum of 8192")
	_, err = RecallParams(0.8, MaxNumPerm+1, DefaultRecallMargin, DefaultRecallTarget)
	require.ErrorContains(t, err, "maximum of 8192")
}

func BenchmarkChooseMaxNumPerm(b *testing.B) {
	for _, th := range []float64{0.5, 0.8, 0.95} {
		b.Run(fmt.Sprintf("datasketch/t=%v", th), func(b *testing.B) {
			for b.Loop() {
				if _, err := OptimalParams(th, MaxNumPerm, 0.5, 0.5); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("recall/t=%v", th), func(b *testing.B) {
			for b.Loop() {
				if _, err := RecallParams(th, MaxNumPerm, DefaultRecallMargin, DefaultRecallTarget); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// gaussLegendre's lanes give the nodes and weights of one root at a time, bit for bit.
func TestGaussLegendreLanes(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 8, 9, 16, 17, 33, 65, 129, 257, 1025, 4097} {
		x, w := gaussLegendre(n)
		rx, rw := referenceGaussLegendre(n)
		require.Equal(t, rx, x, "n=%d", n)
		require.Equal(t, rw, w, "n=%d", n)
	}
}
