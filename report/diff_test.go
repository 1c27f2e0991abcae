package report

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func join(segs []Segment, keep Op) string {
	var b strings.Builder
	for _, s := range segs {
		if s.Op == Same || s.Op == keep {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

func marked(segs []Segment) []string {
	var out []string
	for _, s := range segs {
		if s.Op != Same {
			out = append(out, strings.TrimSpace(s.Text))
		}
	}
	return out
}

func TestWordDiffMarksChangedWords(t *testing.T) {
	l, r, ok := WordDiff("the quick brown fox jumps over the lazy dog", "the quick red fox jumps over the very lazy dog", nil)
	require.True(t, ok)
	assert.Equal(t, []string{"brown"}, marked(l))
	assert.Equal(t, []string{"red", "very"}, marked(r))
	assert.Equal(t, "the quick brown fox jumps over the lazy dog", join(l, Deleted))
	assert.Equal(t, "the quick red fox jumps over the very lazy dog", join(r, Added))
}

// The segments always rebuild both texts, and the common ones are a common subsequence
// of the minimal length Myers guarantees (checked against a quadratic LCS).
func TestWordDiffRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "d", "e"}
	gen := func() string {
		n := rng.IntN(30)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(parts, " ")
	}
	for i := 0; i < 500; i++ {
		a, b := gen(), gen()
		l, r, ok := WordDiff(a, b, nil)
		require.True(t, ok)
		require.Equal(t, a, join(l, Deleted))
		require.Equal(t, b, join(r, Added))
		wa, wb := strings.Fields(a), strings.Fields(b)
		opsA, opsB, ok := myers(wa, wb)
		require.True(t, ok)
		var common []string
		for i, op := range opsA {
			if op == Same {
				common = append(common, wa[i])
			}
		}
		var commonB []string
		for i, op := range opsB {
			if op == Same {
				commonB = append(commonB, wb[i])
			}
		}
		assert.Equal(t, common, commonB, "%q vs %q", a, b)
		assert.Equal(t, lcs(wa, wb), len(common), "%q vs %q", a, b)
	}
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

func TestWordDiffGivesUpOnUnrelatedTexts(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 3000; i++ {
		a.WriteString("x ")
		b.WriteString("y ")
	}
	l, r, ok := WordDiff(a.String(), b.String(), nil)
	assert.False(t, ok)
	assert.Equal(t, a.String(), join(l, Deleted))
	assert.Equal(t, b.String(), join(r, Added))
}

func TestWordDiffKey(t *testing.T) {
	l, r, ok := WordDiff("Red blue GREEN", "red blue green yellow", strings.ToLower)
	require.True(t, ok)
	assert.Empty(t, marked(l), "a change of case is not a difference under the key")
	assert.Equal(t, []string{"yellow"}, marked(r))
}

// BenchmarkWordDiff10kRunes diffs two texts of the report's largest shown size (10,000
// characters, DefaultMaxRunes) that differ in a few words, as a near-duplicate pair does.
func BenchmarkWordDiff10kRunes(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the quick brown fox jumps over lazy dog and then some more words follow here")
	var ta strings.Builder
	for ta.Len() < DefaultMaxRunes {
		ta.WriteString(words[rng.IntN(len(words))])
		ta.WriteByte(' ')
	}
	a := ta.String()
	tb := []byte(a)
	for i := range 5 {
		tb[len(tb)*(i+1)/6] = 'X'
	}
	bText := string(tb)
	b.ReportAllocs()
	for b.Loop() {
		WordDiff(a, bText, strings.ToLower)
	}
}
