package gen

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/neardup/neardup/internal/jsonstr"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type docLine struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

type clusterLine struct {
	Cluster string   `json:"cluster"`
	Size    int      `json:"size"`
	Members []string `json:"members"`
}

func generate(t testing.TB, o Options) (docs, truth []byte, s Summary) {
	t.Helper()
	var d, tr bytes.Buffer
	s, err := Generate(o, &d, &tr)
	require.NoError(t, err)
	return d.Bytes(), tr.Bytes(), s
}

func parseDocs(t testing.TB, b []byte) []docLine {
	t.Helper()
	var out []docLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var d docLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &d), "line %q", sc.Text())
		out = append(out, d)
	}
	require.NoError(t, sc.Err())
	return out
}

func parseTruth(t testing.TB, b []byte) []clusterLine {
	t.Helper()
	var out []clusterLine
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		var c clusterLine
		require.NoError(t, json.Unmarshal([]byte(line), &c), "line %q", line)
		out = append(out, c)
	}
	return out
}

func small(n int) Options {
	o := Defaults()
	o.N = n
	return o
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	o := small(3000)
	o.Workers = 1
	d1, t1, _ := generate(t, o)
	o.Workers = 4
	d4, t4, _ := generate(t, o)
	assert.True(t, bytes.Equal(d1, d4), "corpus differs between 1 and 4 workers")
	assert.True(t, bytes.Equal(t1, t4), "truth differs between 1 and 4 workers")

	o.Seed = 2
	d2, t2, _ := generate(t, o)
	assert.False(t, bytes.Equal(d1, d2), "seed does not change the corpus")
	assert.False(t, bytes.Equal(t1, t2), "seed does not change the truth")
}

func TestCorpusShape(t *testing.T) {
	o := small(5000)
	data, truth, s := generate(t, o)
	docs := parseDocs(t, data)
	require.Len(t, docs, o.N)
	assert.Equal(t, int64(len(data)), s.Bytes)
	for i, d := range docs {
		require.Equal(t, fmt.Sprintf("doc-%07d", i+1), d.ID)
		require.True(t, utf8.ValidString(d.Text))
		require.NotEmpty(t, strings.TrimSpace(d.Text))
	}

	clusters := parseTruth(t, truth)
	assert.Equal(t, s.Clusters, len(clusters))
	seen := map[string]bool{}
	inClusters := 0
	for i, c := range clusters {
		require.GreaterOrEqual(t, c.Size, 2)
		require.Len(t, c.Members, c.Size)
		require.Equal(t, c.Members[0], c.Cluster, "cluster id is its smallest member")
		require.True(t, sortedStrict(c.Members), "members sorted: %v", c.Members)
		if i > 0 {
			require.Less(t, clusters[i-1].Cluster, c.Cluster, "clusters sorted by id")
		}
		for _, m := range c.Members {
			require.False(t, seen[m], "%s in two clusters", m)
			seen[m] = true
			require.Less(t, m, fmt.Sprintf("doc-%07d", o.N+1))
		}
		inClusters += c.Size
	}
	// Every duplicate is in exactly one cluster together with one original.
	assert.Equal(t, 500, s.Duplicates)
	assert.Equal(t, s.Duplicates+s.Clusters, inClusters)
	assert.Equal(t, o.N, s.Originals+s.Duplicates)
	// Mostly pairs, but not only pairs.
	sizes := map[int]int{}
	for _, c := range clusters {
		sizes[c.Size]++
	}
	assert.Greater(t, sizes[2], len(clusters)/2)
	assert.Greater(t, len(clusters)-sizes[2], 0)
}

func sortedStrict(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] >= s[i] {
			return false
		}
	}
	return true
}

// With every edit switched off, a planted duplicate is a byte copy of its original.
func TestZeroEditsGiveExactCopies(t *testing.T) {
	o := small(2000)
	o.DupFraction = 0.3
	o.InsertRate, o.DeleteRate, o.SubstituteRate = 0, 0, 0
	o.BoilerplateRate, o.TruncateRate, o.NoiseRate = 0, 0, 0
	data, truth, _ := generate(t, o)
	text := map[string]string{}
	for _, d := range parseDocs(t, data) {
		text[d.ID] = d.Text
	}
	distinct := map[string]bool{}
	for _, c := range parseTruth(t, truth) {
		for _, m := range c.Members[1:] {
			require.Equal(t, text[c.Members[0]], text[m], "cluster %s", c.Cluster)
		}
		distinct[text[c.Cluster]] = true
	}
	assert.Equal(t, len(parseTruth(t, truth)), len(distinct), "clusters have different originals")
}

// words splits like a normalizer would: lower-case, punctuation stripped.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		out[w] = true
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// Planted duplicates are near their cluster-mates and far from random documents.
func TestDuplicatesAreNear(t *testing.T) {
	o := small(4000)
	o.CJKFraction = 0 // CJK has no spaces: word sets are meaningless there
	data, truth, _ := generate(t, o)
	docs := parseDocs(t, data)
	text := map[string]string{}
	for _, d := range docs {
		text[d.ID] = d.Text
	}
	var in, n float64
	minIn := 1.0
	for _, c := range parseTruth(t, truth) {
		for _, m := range c.Members[1:] {
			j := jaccard(words(text[c.Members[0]]), words(text[m]))
			in += j
			n++
			minIn = min(minIn, j)
		}
	}
	var out float64
	for i := 0; i+1 < 400; i += 2 {
		out += jaccard(words(docs[i].Text), words(docs[i+1].Text))
	}
	out /= 200
	assert.Greater(t, in/n, 0.75, "mean word Jaccard within clusters")
	assert.Less(t, out, 0.3, "mean word Jaccard of unrelated documents")
	assert.Less(t, minIn, 0.9, "some duplicates are heavily edited")
}

func TestLengthsAndScripts(t *testing.T) {
	o := small(6000)
	o.DupFraction = 0
	data, _, _ := generate(t, o)
	var total, latinDocs, cyr, han int
	for _, d := range parseDocs(t, data) {
		switch {
		case strings.ContainsFunc(d.Text, func(r rune) bool { return unicode.Is(unicode.Han, r) }):
			han++
		case strings.ContainsFunc(d.Text, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }):
			cyr++
		default:
			n := len(strings.Fields(d.Text))
			require.GreaterOrEqual(t, n, o.MinWords)
			require.LessOrEqual(t, n, o.MaxWords)
			total += n
			latinDocs++
		}
	}
	assert.InDelta(t, float64(o.MeanWords), float64(total)/float64(latinDocs), 6)
	assert.InDelta(t, o.CyrillicFraction, float64(cyr)/float64(o.N), 0.02)
	assert.InDelta(t, o.CJKFraction, float64(han)/float64(o.N), 0.015)
}

func TestAppendJSONString(t *testing.T) {
	in := "a\"b\\c\n\t\r\x01\x1f é 中文 </script>"
	line := `"` + string(jsonstr.AppendEscaped(nil, []byte(in))) + `"`
	var out string
	require.NoError(t, json.Unmarshal([]byte(line), &out))
	assert.Equal(t, in, out)
}

func TestID(t *testing.T) {
	assert.Equal(t, "doc-0000001", ID(0, 10))
	assert.Equal(t, "doc-0012345", ID(12344, 9999999))
	assert.Equal(t, "doc-00000001", ID(0, 10000000))
}

func TestRunWritesBothFiles(t *testing.T) {
	dir := t.TempDir()
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	o := Defaults()
	o.RegisterFlags(fs)
	out := filepath.Join(dir, "c.jsonl")
	require.NoError(t, fs.Parse([]string{"-n", "300", "-seed", "7", "-output", out, "-dup-fraction", "0.2"}))
	var log bytes.Buffer
	require.NoError(t, Run(o, &log))
	assert.Contains(t, log.String(), "300 documents")

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"c.jsonl", "c.truth.jsonl"}, names, "no temporary files left")

	want, wantTruth, _ := generate(t, o)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, got))
	gotTruth, err := os.ReadFile(filepath.Join(dir, "c.truth.jsonl"))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(wantTruth, gotTruth))
}

func TestValidate(t *testing.T) {
	for name, mod := range map[string]func(*Options){
		"dup fraction 1":  func(o *Options) { o.DupFraction = 1 },
		"negative n":      func(o *Options) { o.N = -1 },
		"mean too high":   func(o *Options) { o.MeanWords = 390 },
		"rates too high":  func(o *Options) { o.InsertRate, o.DeleteRate = 0.3, 0.3 },
		"scripts over 1":  func(o *Options) { o.CyrillicFraction, o.CJKFraction = 0.7, 0.5 },
		"min above max":   func(o *Options) { o.MinWords = 500 },
		"negative noise":  func(o *Options) { o.NoiseRate = -0.1 },
		"vocab too small": func(o *Options) { o.VocabSize = 10 },
	} {
		o := Defaults()
		mod(&o)
		_, err := Generate(o, io.Discard, io.Discard)
		assert.Error(t, err, name)
	}
	o := Defaults()
	o.N = 0
	d, tr, _ := generate(t, o)
	assert.Empty(t, d)
	assert.Empty(t, tr)
}

// BenchmarkGenerate measures documents per second written to io.Discard.
func BenchmarkGenerate(b *testing.B) {
	o := small(20000)
	var bytesOut int64
	for b.Loop() {
		s, err := Generate(o, io.Discard, io.Discard)
		require.NoError(b, err)
		bytesOut = s.Bytes
	}
	b.SetBytes(bytesOut)
	b.ReportMetric(float64(o.N*b.N)/b.Elapsed().Seconds(), "docs/s")
}

// The renderer writes boilerplate and words unescaped into JSON: they must not
// contain anything JSON would escape.
func TestRenderedPiecesNeedNoEscaping(t *testing.T) {
	g := newGenerator(small(10))
	for l := range numLangs {
		for _, s := range append(append(append([]string{}, boilerplate[l].headers...), boilerplate[l].footers...),
			append(g.vocabs[l].words, g.vocabs[l].caps...)...) {
			require.Equal(t, s, string(jsonstr.AppendEscaped(nil, []byte(s))))
		}
		for _, p := range asciiPunct {
			require.Equal(t, p, string(jsonstr.AppendEscaped(nil, []byte(p))))
		}
		for _, p := range cjkPunct {
			require.Equal(t, p, string(jsonstr.AppendEscaped(nil, []byte(p))))
		}
	}
}

func TestVocabForms(t *testing.T) {
	g := newGenerator(small(10))
	for l := range numLangs {
		v := g.vocabs[l]
		require.Len(t, v.words, Defaults().VocabSize)
		seen := map[string]bool{}
		for i, w := range v.words {
			require.False(t, seen[w], "duplicate word %q", w)
			seen[w] = true
			require.Equal(t, w+" ", v.wordsSp[i])
			require.Equal(t, v.caps[i]+" ", v.capsSp[i])
			r, n := utf8.DecodeRuneInString(v.caps[i])
			require.Equal(t, string(unicode.ToUpper(r))+v.caps[i][n:], v.caps[i])
			require.Equal(t, strings.ToLower(v.caps[i][:n]), strings.ToLower(w[:n]))
		}
	}
	// The Zipf head: the commonest English word is "the".
	assert.Equal(t, "the", g.vocabs[latin].words[0])
}

// The alias table reproduces the Zipf weights.
func TestVocabSamplingFollowsZipf(t *testing.T) {
	o := small(10)
	o.VocabSize = 200
	g := newGenerator(o)
	v := g.vocabs[latin]
	r := g.newWorker().r
	counts := make([]int, len(v.words))
	const draws = 400000
	for range draws {
		counts[v.sample(r)]++
	}
	var sum float64
	for i := range counts {
		sum += 1 / (float64(i) + 2.7)
	}
	for _, i := range []int{0, 1, 5, 50, 199} {
		want := draws * (1 / (float64(i) + 2.7)) / sum
		assert.InDelta(t, want, float64(counts[i]), 5*math.Sqrt(want)+1, "rank %d", i)
	}
}

func TestRunCompressesByExtension(t *testing.T) {
	o := Defaults()
	o.N, o.Seed = 300, 7
	want, wantTruth, _ := generate(t, o)
	for _, ext := range []string{".zst", ".gz"} {
		dir := t.TempDir()
		o.Output = filepath.Join(dir, "c.jsonl"+ext)
		require.NoError(t, Run(o, io.Discard))
		raw, err := os.ReadFile(o.Output)
		require.NoError(t, err)
		var r io.Reader
		if ext == ".zst" {
			zr, err := zstd.NewReader(bytes.NewReader(raw))
			require.NoError(t, err)
			defer zr.Close()
			r = zr
		} else {
			r, err = gzip.NewReader(bytes.NewReader(raw))
			require.NoError(t, err)
		}
		got, err := io.ReadAll(r)
		require.NoError(t, err, ext)
		assert.True(t, bytes.Equal(want, got), "%s: decompressed corpus equals the plain one", ext)
		assert.Less(t, len(raw), len(got)*3/4, "%s: compressed", ext)
		gotTruth, err := os.ReadFile(filepath.Join(dir, "c.truth.jsonl"))
		require.NoError(t, err, "%s: truth beside the corpus, uncompressed", ext)
		assert.True(t, bytes.Equal(wantTruth, gotTruth))
	}
}
