package shingle

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/normalize"
)

func words(n int) Options { return Options{Kind: Word, N: n} }
func chars(n int) Options { return Options{Kind: Char, N: n} }

func collect(norm string, o Options) []string {
	var out []string
	Each(norm, o, func(s string) { out = append(out, s) })
	return out
}

func TestSeedExample(t *testing.T) {
	norm := func(s string) string { return normalize.Text(s, normalize.Options{}) }
	d1 := Strings(norm("red blue green"), words(2))
	d2 := Strings(norm("red blue green yellow"), words(2))
	d3 := Strings(norm("black white"), words(2))
	d4 := Strings(norm("RED BLUE GREEN"), words(2))
	assert.Equal(t, []string{"red blue", "blue green"}, d1)
	assert.Equal(t, []string{"red blue", "blue green", "green yellow"}, d2)
	assert.Equal(t, []string{"black white"}, d3)
	assert.Equal(t, d1, d4, "case folding happens before shingling")

	h1 := Hashes(norm("red blue green"), words(2), xxhash.Sum64)
	h4 := Hashes(norm("RED BLUE GREEN"), words(2), xxhash.Sum64)
	assert.Equal(t, h1, h4)
	assert.Equal(t, SetHash(h1), SetHash(h4), "exact duplicates collapse")
	h2 := Hashes(norm("red blue green yellow"), words(2), xxhash.Sum64)
	assert.NotEqual(t, SetHash(h1), SetHash(h2))
}

func TestShortTextAndEmpty(t *testing.T) {
	assert.Equal(t, []string{"a b"}, collect("a b", words(5)), "fewer than N words: whole text")
	assert.Equal(t, []string{"a"}, collect("a", words(2)))
	assert.Equal(t, []string{"a b c"}, collect("a b c", words(3)), "exactly N words: one n-gram")
	assert.Equal(t, []string{"a", "b", "c"}, collect("a b c", words(1)))
	assert.Equal(t, []string{"日本"}, collect("日本", chars(5)), "fewer than N runes")
	assert.Equal(t, []string{"日本語"}, collect("日本語", chars(3)))
	for _, o := range []Options{words(1), words(5), chars(1), chars(5)} {
		assert.Empty(t, collect("", o))
		assert.Empty(t, Strings("", o))
		assert.Empty(t, Hashes("", o, xxhash.Sum64))
	}
}

func TestEachOrderAndRepeats(t *testing.T) {
	assert.Equal(t, []string{"a b", "b a", "a b", "b a"}, collect("a b a b a", words(2)))
	assert.Equal(t, []string{"a b", "b a"}, Strings("a b a b a", words(2)))
	assert.Equal(t, []string{"to be or", "be or not", "or not to", "not to be"},
		collect("to be or not to be", words(3)))
}

func TestCharShingles(t *testing.T) {
	assert.Equal(t, []string{"日本語", "本語の", "語のテ", "のテキ", "テキス", "キスト"},
		collect("日本語のテキスト", chars(3)))
	assert.Equal(t, []string{"ми", "ир"}, collect("мир", chars(2)))
	assert.Equal(t, []string{"ab ", "b c", " cd"}, collect("ab cd", chars(3)), "spaces are runes too")
	assert.Equal(t, []string{"a", "b", "a"}, collect("aba", chars(1)))
	assert.Equal(t, []string{"a", "b"}, Strings("aba", chars(1)))
	// Mixed widths: 1-, 2-, 3- and 4-byte runes.
	assert.Equal(t, []string{"aé", "é日", "日😀"}, collect("aé日😀", chars(2)))
}

func TestCyrillicWords(t *testing.T) {
	n := normalize.Text("Привет  МИР как\tдела", normalize.Options{})
	assert.Equal(t, []string{"привет мир", "мир как", "как дела"}, Strings(n, words(2)))
}

func TestNormalizationFeedsShingles(t *testing.T) {
	norm := func(s string) string { return normalize.Text(s, normalize.Options{}) }
	// NFKC: the ligature and fullwidth letters become plain lower-case text.
	assert.Equal(t, []string{"file abc"}, Strings(norm("ﬁle ＡＢＣ"), words(2)))
	// Tabs, NBSP, newlines and runs of spaces fold to single spaces.
	assert.Equal(t, Strings(norm("red blue green"), words(2)),
		Strings(norm("  red\t\u00a0blue\n\n green \r\n"), words(2)))
	assert.Equal(t, Hashes(norm("red blue green"), chars(4), xxhash.Sum64),
		Hashes(norm("RED\u3000BLUE\tGREEN"), chars(4), xxhash.Sum64))
}

// refShingles is the textbook definition: split, then join windows.
func refShingles(norm string, o Options) []string {
	if norm == "" {
		return nil
	}
	var units []string
	sep := " "
	if o.Kind == Char {
		for _, r := range norm {
			units = append(units, string(r))
		}
		sep = ""
	} else {
		units = strings.Split(norm, " ")
	}
	if len(units) < o.N {
		return []string{norm}
	}
	var out []string
	for i := 0; i+o.N <= len(units); i++ {
		out = append(out, strings.Join(units[i:i+o.N], sep))
	}
	return out
}

func TestAgainstReference(t *testing.T) {
	vocab := []string{"a", "bb", "ccc", "日本", "мир", "é", "😀", "x1", "the"}
	r := rand.New(rand.NewPCG(5, 9))
	for range 3000 {
		var ws []string
		for range r.IntN(12) {
			ws = append(ws, vocab[r.IntN(len(vocab))])
		}
		norm := strings.Join(ws, " ")
		for _, o := range []Options{words(1 + r.IntN(6)), chars(1 + r.IntN(8))} {
			want := refShingles(norm, o)
			got := collect(norm, o)
			require.Equal(t, want, got, "%q %+v", norm, o)
			for _, s := range got {
				require.Contains(t, norm, s, "shingles are substrings")
			}
			// Strings: distinct, first-appearance order.
			var distinct []string
			for _, s := range want {
				if !slices.Contains(distinct, s) {
					distinct = append(distinct, s)
				}
			}
			require.Equal(t, distinct, nilIfEmpty(Strings(norm, o)))
			// Hashes: sorted distinct hashes of the distinct shingles.
			var hs []uint64
			for _, s := range distinct {
				hs = append(hs, xxhash.Sum64String(s))
			}
			slices.Sort(hs)
			require.Equal(t, hs, nilIfEmptyU(Hashes(norm, o, xxhash.Sum64)))
		}
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func nilIfEmptyU(s []uint64) []uint64 {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestHashesSortedDistinctWithCollidingSum(t *testing.T) {
	// A deliberately poor hash (length) collides; the set must still be sorted
	// and distinct.
	byLen := func(b []byte) uint64 { return uint64(len(b)) }
	// "a bb"=4, "bb ccc"=6, "ccc dd"=6, "dd e"=4
	assert.Equal(t, []uint64{4, 6}, Hashes("a bb ccc dd e", words(2), byLen))
}

func TestHashesAllocatesOnlyTheResult(t *testing.T) {
	norm := "the quick brown fox jumps over the lazy dog again and again"
	allocs := testing.AllocsPerRun(100, func() { _ = Hashes(norm, words(2), xxhash.Sum64) })
	assert.Equal(t, 1.0, allocs)
	allocs = testing.AllocsPerRun(100, func() { _ = Hashes(norm, chars(5), xxhash.Sum64) })
	assert.Equal(t, 1.0, allocs)
}

func TestSetHash(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	seen := map[uint64]int{}
	for n := range 200 {
		hs := make([]uint64, n)
		for i := range hs {
			hs[i] = r.Uint64()
		}
		got := SetHash(hs)
		_, dup := seen[got]
		require.False(t, dup, "distinct sets, distinct fingerprints")
		seen[got] = n
		r.Shuffle(len(hs), func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })
		require.Equal(t, got, SetHash(hs), "the order of the set does not matter")
		if n > 0 {
			require.NotEqual(t, got, SetHashSeed(hs, 7), "seeds give other fingerprints")
		}
	}
	// Sets that differ in one small value, or only by a swap of values between
	// positions (which a sum of unmixed values would not tell apart).
	assert.NotEqual(t, SetHash([]uint64{1, 2}), SetHash([]uint64{1, 2, 3}))
	assert.NotEqual(t, SetHash([]uint64{1, 4}), SetHash([]uint64{2, 3}))
	assert.NotEqual(t, SetHash([]uint64{0}), SetHash(nil), "the hash 0 is a member like any other")
	assert.Equal(t, SetHash(nil), SetHash([]uint64{}))
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = SetHash([]uint64{1, 2, 3}) }))
}

func TestDistinctKeepsFirstOccurrences(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	var d Distinct
	for n := 1; n < 300; n++ {
		pool := make([]uint64, 1+n/3) // values repeat about three times
		for i := range pool {
			pool[i] = r.Uint64N(1 << (1 + r.IntN(63))) // small and large values, and 0
		}
		pool[0] = 0
		h := make([]uint64, n)
		for i := range h {
			h[i] = pool[r.IntN(len(pool))]
		}
		var want []uint64
		seen := map[uint64]bool{}
		for _, v := range h {
			if !seen[v] {
				seen[v] = true
				want = append(want, v)
			}
		}
		require.Equal(t, want, d.Keep(slices.Clone(h)), "n=%d", n)
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = d.Keep([]uint64{3, 1, 3, 2, 1}) }), "the table is reused")
}

func TestAppendHashesIsHashesWithRepeats(t *testing.T) {
	var d Distinct
	for _, o := range []Options{words(1), words(2), words(3), chars(3), chars(5)} {
		for _, norm := range []string{"", "a", "a b", "the cat the cat the cat sat", "ab ab ab ab ab abab"} {
			all := AppendHashes(nil, norm, o, xxhash.Sum64)
			set := d.Keep(slices.Clone(all))
			slices.Sort(set)
			assert.ElementsMatch(t, Hashes(norm, o, xxhash.Sum64), set, "%+v %q", o, norm)
			assert.Equal(t, len(Strings(norm, o)), len(set))
		}
	}
}

func TestKindAndOptions(t *testing.T) {
	k, err := ParseKind("word")
	require.NoError(t, err)
	assert.Equal(t, Word, k)
	k, err = ParseKind("char")
	require.NoError(t, err)
	assert.Equal(t, Char, k)
	_, err = ParseKind("chars")
	assert.ErrorContains(t, err, `"chars"`)
	_, err = ParseKind("")
	assert.Error(t, err)

	assert.Equal(t, "word", Word.String())
	assert.Equal(t, "char", Char.String())
	var zero Options
	assert.Equal(t, Word, zero.Kind, "word is the zero value")

	var u Kind
	require.NoError(t, u.UnmarshalText([]byte("char")))
	assert.Equal(t, Char, u)
	b, err := Word.MarshalText()
	require.NoError(t, err)
	assert.Equal(t, "word", string(b))
	_, err = Kind(9).MarshalText()
	assert.Error(t, err)

	assert.Equal(t, Options{Kind: Word, N: 5}, DefaultOptions())
	assert.NoError(t, DefaultOptions().Validate())
	assert.NoError(t, chars(1).Validate())
	assert.ErrorContains(t, words(0).Validate(), "at least 1")
	assert.Error(t, words(-3).Validate())
	assert.ErrorContains(t, Options{Kind: 7, N: 2}.Validate(), "invalid kind")
	assert.Panics(t, func() { Each("a b", words(0), func(string) {}) })
}

// doc200 is a 200-word English-like document with mixed case and punctuation.
func doc200() string {
	ws := strings.Fields(`The quick brown fox jumps over the lazy dog, while seven
	wizards quietly hex a jumbo vat of fizzy liquor. Meanwhile: crawlers fetch
	pages, parsers extract text; deduplication removes copies of pages.`)
	r := rand.New(rand.NewPCG(2, 3))
	out := make([]string, 200)
	for i := range out {
		out[i] = ws[r.IntN(len(ws))]
	}
	return strings.Join(out, " ")
}

func BenchmarkNormalizeHashes200Words(b *testing.B) {
	doc := doc200()
	for _, o := range []Options{words(5), words(2), chars(5)} {
		b.Run(o.Kind.String()+"-"+string(rune('0'+o.N)), func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				n := normalize.Text(doc, normalize.Options{StripPunct: true})
				_ = Hashes(n, o, xxhash.Sum64)
			}
		})
	}
}

func BenchmarkHashesOnly200Words(b *testing.B) {
	n := normalize.Text(doc200(), normalize.Options{})
	b.SetBytes(int64(len(n)))
	for b.Loop() {
		_ = Hashes(n, words(5), xxhash.Sum64)
	}
}

// BenchmarkAppendHashes200Words is the featurizing pass's use: hashes in document order,
// through the function the pipeline passes (minhash.HashFunc.Func).
func BenchmarkAppendHashes200Words(b *testing.B) {
	n := normalize.Text(doc200(), normalize.Options{})
	sum := minhash.XXHash.Func()
	var dst []uint64
	b.SetBytes(int64(len(n)))
	for b.Loop() {
		dst = AppendHashes(dst[:0], n, words(5), sum)
	}
}

// TestIndexSpaceIsIndexByte checks the word-at-a-time search against bytes.IndexByte at
// every start of texts with spaces at every position of an eight-byte word, next to
// bytes whose value differs from a space's by one bit or by a borrow (0x00, 0x1f, 0x21,
// 0xa0, 0xff), which a wrong mask would mistake for one.
func TestIndexSpaceIsIndexByte(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	alphabet := []byte{' ', ' ', 'a', 'Z', 0x00, 0x1f, 0x21, 0xa0, 0xff, 0x80, 0x01}
	for n := range 40 {
		for range 200 {
			b := make([]byte, n)
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
			for from := 0; from <= n; from++ {
				want := n
				if j := bytes.IndexByte(b[from:], ' '); j >= 0 {
					want = from + j
				}
				require.Equal(t, want, indexSpace(b, from), "%q from %d", b, from)
			}
		}
	}
}
