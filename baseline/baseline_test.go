package baseline

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/gen/gentest"
	"github.com/neardup/neardup/internal/repotest"
	"github.com/neardup/neardup/shingle"
)

// randomSets draws n sets from a small universe with heavy overlap: each set is
// a noisy copy of one of a few prototypes, so every similarity level occurs.
func randomSets(r *rand.Rand, n, universe int) [][]uint64 {
	protos := make([][]uint64, 1+r.IntN(5))
	for i := range protos {
		protos[i] = randomSet(r, r.IntN(30), universe)
	}
	sets := make([][]uint64, n)
	for i := range sets {
		switch r.IntN(10) {
		case 0:
			sets[i] = nil
		case 1:
			sets[i] = randomSet(r, 1+r.IntN(40), universe)
		default:
			p := protos[r.IntN(len(protos))]
			var s []uint64
			for _, x := range p {
				if r.IntN(8) > 0 {
					s = append(s, x)
				}
			}
			s = append(s, randomSet(r, r.IntN(4), universe)...)
			slices.Sort(s)
			sets[i] = slices.Compact(s)
		}
	}
	return sets
}

func randomSet(r *rand.Rand, k, universe int) []uint64 {
	s := make([]uint64, k)
	for i := range s {
		// Spread the values over 64 bits so hash order is not small-value order.
		s[i] = uint64(r.IntN(universe)) * 0x9E3779B97F4A7C15
	}
	slices.Sort(s)
	return slices.Compact(s)
}

func TestJoinEqualsBruteForceOnRandomSets(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	thresholds := []float64{0.1, 0.3, 0.5, 0.6, 2.0 / 3, 0.7, 0.75, 0.8, 0.9, 0.95, 1.0}
	nonEmpty := 0
	for trial := range 300 {
		sets := randomSets(r, 2+r.IntN(120), 20+r.IntN(200))
		th := thresholds[trial%len(thresholds)]
		want := BruteForce(sets, th)
		got := Join(sets, th, 1+trial%3)
		require.Equal(t, want, got, "trial %d, threshold %v", trial, th)
		if len(want) > 0 {
			nonEmpty++
		}
	}
	assert.Greater(t, nonEmpty, 250, "most trials have pairs to find")
}

// Thresholds at exact ratios stress the filters' rounding: t·|x| is an integer
// computed in floating point.
func TestJoinAtExactRatios(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, th := range []float64{0.7, 0.8, 0.9, 0.6, 0.3, 0.1} {
		for n := 5; n <= 40; n += 5 {
			// A set of n tokens and copies missing k of them: Jaccard (n-k)/n exactly.
			base := randomSet(r, n, 1<<30)
			for len(base) < n {
				base = randomSet(r, n, 1<<30)
			}
			sets := [][]uint64{base}
			for k := 0; k <= n/2; k++ {
				sets = append(sets, base[k:])
			}
			require.Equal(t, BruteForce(sets, th), Join(sets, th, 2), "t=%v n=%d", th, n)
		}
	}
}

func TestJoinEmptySets(t *testing.T) {
	sets := [][]uint64{{1, 2}, nil, {}, {1, 2}, nil}
	assert.Equal(t, []Pair{{0, 3, 1}, {1, 2, 1}, {1, 4, 1}, {2, 4, 1}}, Join(sets, 0.9, 2))
	assert.Empty(t, Join(nil, 0.5, 1))
	assert.Panics(t, func() { Join(sets, 0, 1) })
	assert.Panics(t, func() { Join(sets, 1.5, 1) })
}

// The seed's worked example (DESIGN.md): word bigrams, lower-case.
func TestSeedExample(t *testing.T) {
	root := repotest.Root(t)
	o := Defaults()
	o.Shingle = shingle.Options{Kind: shingle.Word, N: 2}
	o.Input = []string{filepath.Join(root, "testdata", "seed.jsonl")}

	var out, log bytes.Buffer
	o.Threshold = 0.8
	require.NoError(t, Run(o, &out, &log))
	assert.Equal(t, `{"a": "D1", "b": "D4", "similarity": 1.0}`+"\n", out.String())
	assert.Contains(t, log.String(), "4 documents")

	o.Output = filepath.Join(t.TempDir(), "pairs.jsonl")
	out.Reset()
	require.NoError(t, RunContext(context.Background(), o, &out, &log))
	assert.Empty(t, out.String())
	b, err := os.ReadFile(o.Output)
	require.NoError(t, err)
	assert.Equal(t, `{"a": "D1", "b": "D4", "similarity": 1.0}`+"\n", string(b))
	o.Output = ""

	o.Threshold = 0.6
	require.NoError(t, RunContext(context.Background(), o, &out, &log))
	assert.Equal(t, `{"a": "D1", "b": "D2", "similarity": 0.6666666666666666}
{"a": "D1", "b": "D4", "similarity": 1.0}
{"a": "D2", "b": "D4", "similarity": 0.6666666666666666}
`, out.String())
}

// genCorpus writes a generated corpus of n documents and returns its path.
func genCorpus(t testing.TB, n int) string { return gentest.Corpus(t, n, 1, 0.2) }

// On realistic text (word 5-grams and bigrams of a generated corpus) the join
// finds exactly the brute-force pairs.
func TestJoinEqualsBruteForceOnGeneratedCorpus(t *testing.T) {
	path := genCorpus(t, 800)
	for _, sh := range []shingle.Options{{Kind: shingle.Word, N: 5}, {Kind: shingle.Word, N: 2}, {Kind: shingle.Char, N: 5}} {
		o := Defaults()
		o.Shingle = sh
		o.Input = []string{path}
		c, err := Load(context.Background(), o)
		require.NoError(t, err)
		require.Len(t, c.IDs, 800)
		all := BruteForce(c.Sets, 0.5) // once: the pairs at higher thresholds are a subset
		for _, th := range []float64{0.5, 0.8, 0.9} {
			var want []Pair
			for _, p := range all {
				if p.Sim >= th {
					want = append(want, p)
				}
			}
			require.NotEmpty(t, want)
			require.Equal(t, want, Join(c.Sets, th, 2), "%v t=%v", sh, th)
		}
	}
}

func TestLoad(t *testing.T) {
	in := strings.Join([]string{
		`{"id": "b", "text": "Hello, World"}`,
		`not json`,
		``,
		`{"id": 7, "text": "hello world"}`,
		`{"text": "no id"}`,
		`{"id": "c", "body": "no text"}`,
		`{"id": "d", "text": 3}`,
		`{"id": "a", "text": "HELLO   world"}`,
	}, "\n")
	path := filepath.Join(t.TempDir(), "in.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(in), 0o644))
	o := Defaults()
	o.Input = []string{path}
	o.Shingle.N = 2
	c, err := Load(context.Background(), o)
	require.NoError(t, err)
	// As neardup reads it: the record without an id gets "<file>:<line>".
	assert.Equal(t, []string{"b", "7", path + ":5", "a"}, c.IDs)
	assert.Equal(t, 4, c.Rejected)
	// "hello, world" keeps its comma unless punctuation is stripped.
	assert.Equal(t, []IDPair{{"7", "a", 1}}, c.Pairs(0.9, 1))
	o.StripPunct = true
	c, err = Load(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, []IDPair{{"7", "a", 1}, {"7", "b", 1}, {"a", "b", 1}}, c.Pairs(0.9, 1))

	require.NoError(t, os.WriteFile(path, []byte(`{"id": "x", "text": "a"}`+"\n"+`{"id": "x", "text": "b"}`), 0o644))
	_, err = Load(context.Background(), o)
	assert.ErrorContains(t, err, `id "x" occurs twice`)

	o.Input = []string{filepath.Join(t.TempDir(), "missing.jsonl")}
	_, err = Load(context.Background(), o)
	assert.Error(t, err)
}

func TestFromTexts(t *testing.T) {
	o := Defaults()
	o.Shingle.N = 1
	c, err := FromTexts([]string{"x", "y", "z"}, []string{"a b c d", "A B C E", "q"}, o)
	require.NoError(t, err)
	assert.Equal(t, []IDPair{{"x", "y", 0.6}}, c.Pairs(0.6, 1))
	_, err = FromTexts([]string{"x", "x"}, []string{"a", "b"}, o)
	assert.Error(t, err)
}

func TestPairsRoundTrip(t *testing.T) {
	ps := []IDPair{{"a", "b", 0.8}, {"a\"q", "c", 1}, {"d", "e", 0.6666666666666666}}
	var buf bytes.Buffer
	require.NoError(t, WritePairs(&buf, ps))
	got, err := ReadPairs(&buf)
	require.NoError(t, err)
	assert.Equal(t, ps, got)

	got, err = ReadPairs(strings.NewReader(`{"b": "a", "a": "z", "similarity": 0.5}`))
	require.NoError(t, err)
	assert.Equal(t, []IDPair{{"a", "z", 0.5}}, got)
	_, err = ReadPairs(strings.NewReader(`{"a": "x"}`))
	assert.Error(t, err)
}

func TestFlags(t *testing.T) {
	fs := flag.NewFlagSet("baseline", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := Defaults()
	o.RegisterFlags(fs)
	require.NoError(t, fs.Parse([]string{"-threshold", "0.7", "-ngram", "3", "-shingle", "char", "-hash", "sha1", "-strip-punct",
		"-input", "a.jsonl,b/*.jsonl", "-input", "c.txt"}))
	assert.Equal(t, []string{"a.jsonl", "b/*.jsonl", "c.txt"}, o.Input)
	assert.Equal(t, 0.7, o.Threshold)
	assert.Equal(t, shingle.Options{Kind: shingle.Char, N: 3}, o.Shingle)
	assert.Equal(t, "sha1", string(o.Hash))
	assert.True(t, o.StripPunct)
	assert.Error(t, fs.Parse([]string{"-hash", "md5"}))
	o.Threshold = 0
	assert.Error(t, o.Validate())
}

// BenchmarkJoin joins a generated corpus (word 5-grams, t = 0.8); loading is not timed.
func BenchmarkJoin(b *testing.B) {
	for _, n := range []int{10000, 50000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			o := Defaults()
			o.Input = []string{genCorpus(b, n)}
			c, err := Load(context.Background(), o)
			require.NoError(b, err)
			pairs := 0
			for b.Loop() {
				pairs = len(Join(c.Sets, 0.8, 0))
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "docs/s")
			b.ReportMetric(float64(pairs), "pairs")
		})
	}
}
