package connectedcomponents

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Expected outputs below are worked by hand from the paper's definitions.

func runLargeStar(u string, smaller, larger []string) ([]edge, int) {
	var out []edge
	n := largeStar(u, iter(smaller), iter(larger), func(v, m string) { out = append(out, edge{v, m}) })
	return out, n
}

func runSmallStar(u string, vals ...string) ([]edge, int) {
	var out []edge
	n := smallStar(u, iter(vals), iter(vals), func(v, m string) { out = append(out, edge{v, m}) })
	return out, n
}

func TestLargeStar(t *testing.T) {
	// m(b) = a; larger neighbours d, e, d (duplicates kept) move to a.
	out, n := runLargeStar("b", []string{"a", "b"}, []string{"d", "e", "d"})
	assert.ElementsMatch(t, []edge{{"d", "a"}, {"e", "a"}, {"d", "a"}}, out)
	assert.Equal(t, 3, n)

	// A local minimum keeps its edges: nothing changes.
	out, n = runLargeStar("a", nil, []string{"c", "b"})
	assert.ElementsMatch(t, []edge{{"c", "a"}, {"b", "a"}}, out)
	assert.Zero(t, n)

	// Only smaller neighbours: their own large-star emits the edges.
	out, _ = runLargeStar("z", []string{"a", "b"}, nil)
	assert.Empty(t, out)

	// Isolated (self-loops only) keeps itself alive with a self-loop.
	out, n = runLargeStar("x", []string{"x", "x"}, nil)
	assert.Equal(t, []edge{{"x", "x"}}, out)
	assert.Zero(t, n)

	// String order, not numeric: "n10" < "n5" < "n9".
	out, _ = runLargeStar("n5", []string{"n10"}, []string{"n9"})
	assert.Equal(t, []edge{{"n9", "n10"}}, out)

	assert.Panics(t, func() { runLargeStar("b", []string{"c"}, nil) })
	assert.Panics(t, func() { runLargeStar("b", nil, []string{"b"}) })
}

func TestSmallStar(t *testing.T) {
	// N = {a, b, c, d}, m = a: b, c and d itself point at a; the two a's
	// collapse into the single (d, a); the self-loop is dropped.
	out, n := runSmallStar("d", "b", "a", "c", "a", "d")
	assert.ElementsMatch(t, []edge{{"b", "a"}, {"c", "a"}, {"d", "a"}}, out)
	assert.Equal(t, 2, n)

	// Already a leaf of its minimum: unchanged, duplicates removed.
	out, n = runSmallStar("c", "a", "a")
	assert.Equal(t, []edge{{"c", "a"}}, out)
	assert.Zero(t, n)

	out, _ = runSmallStar("d", "d")
	assert.Equal(t, []edge{{"d", "d"}}, out)

	assert.PanicsWithValue(t,
		`connectedcomponents: small-star at "b" got "c" as a smaller neighbour`,
		func() { runSmallStar("b", "c") })
}

func TestLabelNodeAndAgree(t *testing.T) {
	var labels, checks []edge
	labelNode("c", iter([]string{"a", "c"}), iter([]string{"e"}),
		func(n, l string) { labels = append(labels, edge{n, l}) },
		func(n, l string) { checks = append(checks, edge{n, l}) })
	assert.Equal(t, []edge{{"c", "a"}}, labels)
	assert.ElementsMatch(t, []edge{{"c", "a"}, {"e", "a"}}, checks)

	assert.True(t, agree(iter(nil)))
	assert.True(t, agree(iter([]string{"a"})))
	assert.True(t, agree(iter([]string{"a", "a"})))
	assert.False(t, agree(iter([]string{"a", "b", "a"})))
}

func TestReference(t *testing.T) {
	got := Reference([]edge{{"c", "b"}, {"d", "c"}, {"n9", "n10"}, {"z", "z"}, {"b", "c"}})
	assert.Equal(t, map[string]string{
		"b": "b", "c": "b", "d": "b", "n9": "n10", "n10": "n10", "z": "z",
	}, got)
	assert.Empty(t, Reference(nil))
}

// TestRoundInvariants checks, round by round on many random graphs, what the
// convergence argument rests on: each round keeps the node set and every
// component's minimum (Reference of the working graph equals Reference of
// the input), never adds edges, and the check counts 0 exactly when the
// labels equal Reference; and that every graph converges within the rounds
// documented.
func TestRoundInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ n, m int }{
		{2, 1}, {10, 5}, {50, 25}, {50, 50}, {200, 100}, {200, 300}, {1000, 500}, {1000, 2000},
	} {
		for rep := range 5 {
			edges := randomGraph(rng, "n", tc.n, tc.m)
			want := Reference(edges)
			g := edges
			converged := false
			for r := 0; r <= 8; r++ {
				labels, unconverged := memFinish(g)
				require.Equal(t, len(want), len(labels))
				equal := assert.ObjectsAreEqual(want, labels)
				require.Equal(t, equal, unconverged == 0,
					"n=%d m=%d rep=%d round %d: unconverged=%d but labels equal=%v", tc.n, tc.m, rep, r, unconverged, equal)
				checkSafe(t, want, labels)
				if unconverged == 0 {
					converged = true
					break
				}
				next := memRound(g)
				require.LessOrEqual(t, len(next), len(g))
				require.Equal(t, want, Reference(next), "round %d changed the components", r+1)
				g = next
			}
			assert.True(t, converged, "n=%d m=%d rep=%d: not converged in 8 rounds", tc.n, tc.m, rep)
		}
	}
}

// checkSafe asserts the guarantee that holds at every round: a label is a
// node of the same component and never larger than the node.
func checkSafe(t *testing.T, want, labels map[string]string) {
	t.Helper()
	for u, l := range labels {
		require.LessOrEqual(t, l, u)
		require.Equal(t, want[u], want[l], "label %s of %s is outside its component", l, u)
	}
}

// TestChainRounds measures rounds to converge on paths in shuffled id order,
// the slow case, and keeps the documented claim honest: about log2(n), and
// within DefaultRounds for the 1,000-node chain the Prism test uses.
func TestChainRounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{10, 100, 1000, 10000} {
		worst := 0
		for range 3 {
			worst = max(worst, roundsToConverge(chain(rng, "c", n), 30))
		}
		t.Logf("chain n=%d: worst of 3 converged in %d rounds (log2 n = %.1f)", n, worst, math.Log2(float64(n)))
		assert.LessOrEqual(t, worst, int(math.Ceil(math.Log2(float64(n))))+2, "n=%d", n)
		if n <= 1000 {
			assert.LessOrEqual(t, worst, DefaultRounds)
		}
	}
}

// TestStarMemory proves the per-node operations stream: on a node with
// 100,000 neighbours they allocate a constant handful of bytes, so no group
// is copied into a slice.
func TestStarMemory(t *testing.T) {
	leaves := make([]string, 100_000)
	for i := range leaves {
		leaves[i] = fmt.Sprintf("l%06d", i)
	}
	emitted := 0
	emit := func(_, _ string) { emitted++ }
	allocs := testing.AllocsPerRun(3, func() {
		largeStar("a", iter(nil), iter(leaves), emit)
		largeStar("z", iter(leaves), iter(nil), emit)
		smallStar("z", iter(leaves), iter(leaves), emit)
		labelNode("a", iter(nil), iter(leaves), emit, emit)
		agree(iter(leaves))
	})
	assert.LessOrEqual(t, allocs, 20.0)
	assert.Positive(t, emitted)
}

// TestSpecialShapes runs the in-memory driver on shapes the Prism tests also
// use, to the default rounds.
func TestSpecialShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	leaves := shuffledIDs(rng, "s", 1000)
	for name, edges := range map[string][]edge{
		"star centre in the middle": star(rng, "s500", leaves),
		"star centre smallest":      star(rng, "a", leaves),
		"self-loops and duplicates": {{"x", "x"}, {"y", "z"}, {"z", "y"}, {"y", "z"}, {"z", "z"}, {"w", "w"}, {"w", "w"}},
		"disjoint components":       append(append(chain(rng, "p", 50), randomGraph(rng, "q", 30, 60)...), star(rng, "r5", shuffledIDs(rng, "r", 40))...),
	} {
		g := edges
		for range DefaultRounds {
			g = memRound(g)
		}
		labels, unconverged := memFinish(g)
		assert.Equal(t, Reference(edges), labels, name)
		assert.Zero(t, unconverged, name)
	}
}
