package normalize

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"golang.org/x/text/unicode/norm"
)

func TestTextTable(t *testing.T) {
	plain, strip := Options{}, Options{StripPunct: true}
	cases := []struct {
		name string
		in   string
		o    Options
		want string
	}{
		{"seed D1 unchanged", "red blue green", plain, "red blue green"},
		{"seed D4 lower-cased", "RED BLUE GREEN", plain, "red blue green"},
		{"empty", "", plain, ""},
		{"only whitespace", " \t\n\u00a0\u3000 ", plain, ""},
		{"trim and fold ASCII whitespace", "  red\t\tblue\r\n green\v\f", plain, "red blue green"},
		{"NBSP", "red\u00a0blue", plain, "red blue"},
		{"ideographic space", "日本語\u3000テキスト", plain, "日本語 テキスト"},
		{"line and paragraph separators", "a\u2028b\u2029c\u0085d", plain, "a b c d"},
		{"narrow NBSP and em space", "a\u202fb\u2003c", plain, "a b c"},
		{"fi ligature", "ﬁle", plain, "file"},
		{"fullwidth letters are lower-cased after NFKC", "ＡＢＣ", plain, "abc"},
		{"fullwidth digits", "１２３", plain, "123"},
		{"decomposed accent composes", "cafe\u0301", plain, "café"},
		{"upper composed accent", "CAFÉ", plain, "café"},
		{"Cyrillic", "ПРИВЕТ  Мир", plain, "привет мир"},
		{"Greek", "ΑΒΓ δ", plain, "αβγ δ"},
		{"Kelvin sign", "\u212a", plain, "k"},
		{"recomposes after lower-casing", "I\u0307\u0301", plain, "\u00ed"},
		{"superscript two", "x²", plain, "x2"},
		{"CJK untouched", "日本語のテキスト", plain, "日本語のテキスト"},
		{"punctuation kept by default", "Hello, World!", plain, "hello, world!"},
		{"punctuation stripped", "Hello, World!", strip, "hello world"},
		{"strip does not glue words", "a,b", strip, "a b"},
		{"apostrophe becomes a separator", "Don't", strip, "don t"},
		{"symbols stripped", "$5+3=8 ©2024 | x", strip, "5 3 8 2024 x"},
		{"unicode punctuation stripped", "«Привет», — сказал…", strip, "привет сказал"},
		{"CJK punctuation stripped", "日本語、テキスト。", strip, "日本語 テキスト"},
		{"fullwidth punctuation via NFKC", "Ａ！Ｂ", strip, "a b"},
		{"emoji is a symbol", "hi 👍 there", strip, "hi there"},
		{"emoji kept without strip", "hi 👍", plain, "hi 👍"},
		{"digits and underscore", "a_b 42", strip, "a b 42"},
		{"invalid UTF-8 becomes U+FFFD", "a\xffb", plain, "a\ufffdb"},
		{"one U+FFFD per invalid byte", "\xe2\x82 X", plain, "\ufffd\ufffd x"},
		{"invalid byte before a combining mark", "\xff\u0301", plain, "\ufffd\u0301"},
		{"control chars are not whitespace", "a\x00b", plain, "a\x00b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Text(c.in, c.o))
		})
	}
}

// reference is a straightforward, allocation-heavy statement of the rules that
// Text must agree with.
func reference(s string, o Options) string {
	s = strings.Map(func(r rune) rune { return r }, s) // invalid bytes → U+FFFD, one each
	s = norm.NFKC.String(s)
	s = norm.NFKC.String(strings.Map(unicode.ToLower, s))
	fields := strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (o.StripPunct && (unicode.IsPunct(r) || unicode.IsSymbol(r)))
	})
	return strings.Join(fields, " ")
}

// pieces mixes the kinds of input that stress each rule.
var pieces = []string{
	"a", "Z", "word", "WORD", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u2028",
	",", ".", "'", "-", "$", "+", "©", "«", "»", "…", "、", "。", "！", "，", "～", "｀", "👍",
	"ﬁ", "ＡＢＣ", "１", "é", "e\u0301", "\u0301", "\u0345", "ß", "ẞ", "İ", "Σ", "ǅ", "Ω", "\u212a",
	"Привет", "мир", "日本語", "テキスト", "한국어", "ภาษาไทย", "\xff", "\xe2\x82", "x²", "µ",
}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	n := r.IntN(12)
	for range n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// invariantError returns what is wrong with Text(in, o), or "" when it agrees
// with the reference and has the promised shape. Plain checks (no testify in the
// hot loop) keep the every-rune test fast.
func invariantError(in string, o Options) string {
	got := Text(in, o)
	if want := reference(in, o); got != want {
		return fmt.Sprintf("Text(%+q) = %+q, reference %+q", in, got, want)
	}
	if !utf8.ValidString(got) || !norm.NFKC.IsNormalString(got) {
		return fmt.Sprintf("Text(%+q) = %+q is not valid NFKC", in, got)
	}
	if strings.HasPrefix(got, " ") || strings.HasSuffix(got, " ") || strings.Contains(got, "  ") {
		return fmt.Sprintf("Text(%+q) = %+q: spaces not folded", in, got)
	}
	for _, r := range got {
		switch {
		case unicode.ToLower(r) != r:
			return fmt.Sprintf("Text(%+q) = %+q keeps upper-case %q", in, got, r)
		case r != ' ' && unicode.IsSpace(r):
			return fmt.Sprintf("Text(%+q) = %+q keeps whitespace %q", in, got, r)
		case o.StripPunct && (unicode.IsPunct(r) || unicode.IsSymbol(r)):
			return fmt.Sprintf("Text(%+q) = %+q keeps punctuation %q", in, got, r)
		}
	}
	if again := Text(got, o); again != got {
		return fmt.Sprintf("not idempotent: Text(%+q) = %+q, then %+q", in, got, again)
	}
	return ""
}

func checkInvariants(t *testing.T, in string, o Options) {
	t.Helper()
	if msg := invariantError(in, o); msg != "" {
		t.Fatal(msg)
	}
}

func TestTextProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for range 5000 {
		in := randomText(r)
		checkInvariants(t, in, Options{})
		checkInvariants(t, in, Options{StripPunct: true})
	}
}

// TestTextEveryRune runs each assigned rune alone and between words through the
// invariants, so no single code point breaks idempotence or the reference.
func TestTextEveryRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !unicode.Is(unicode.L, r) && !unicode.Is(unicode.M, r) && !unicode.Is(unicode.N, r) &&
			!unicode.Is(unicode.P, r) && !unicode.Is(unicode.S, r) && !unicode.Is(unicode.Z, r) &&
			!unicode.IsSpace(r) {
			continue
		}
		s := string(r)
		for _, o := range []Options{{}, {StripPunct: true}} {
			checkInvariants(t, s, o)
			checkInvariants(t, "A "+s+"B", o)
		}
	}
}

func TestAlreadyNormalizedDoesNotAllocate(t *testing.T) {
	for _, s := range []string{"red blue green", "привет мир", "日本語 テキスト", ""} {
		allocs := testing.AllocsPerRun(100, func() { _ = Text(s, Options{StripPunct: true}) })
		assert.Zero(t, allocs, "%q", s)
	}
	// Text that needs work allocates its result once.
	allocs := testing.AllocsPerRun(100, func() { _ = Text("Red  Blue", Options{}) })
	assert.Equal(t, 1.0, allocs)
}

func TestTextReusingIsText(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	var buf []byte
	for range 5000 {
		in := randomText(r)
		for _, o := range []Options{{}, {StripPunct: true}} {
			if want, got := Text(in, o), TextReusing(in, o, &buf); got != want {
				t.Fatalf("TextReusing(%q, %+v) = %q, Text gives %q", in, o, got, want)
			}
		}
	}
	allocs := testing.AllocsPerRun(100, func() { _ = TextReusing("Red  Blue, GREEN", Options{}, &buf) })
	assert.Zero(t, allocs, "a rebuilt text reuses the buffer")
}

func FuzzText(f *testing.F) {
	for _, p := range pieces {
		f.Add(p + " X" + p)
	}
	f.Add("RED BLUE GREEN")
	f.Fuzz(func(t *testing.T, s string) {
		checkInvariants(t, s, Options{})
		checkInvariants(t, s, Options{StripPunct: true})
	})
}

// doc200 is a 200-word document with mixed case, punctuation and irregular
// whitespace, the size DESIGN.md's speed figures use.
func doc200(upper bool) string {
	words := strings.Fields(`The quick brown fox jumps over the lazy dog, while
	seven wizards quietly hex a jumbo vat of fizzy liquor. Meanwhile: crawlers
	fetch pages, parsers extract text; deduplication removes copies.`)
	var b strings.Builder
	for i := range 200 {
		if i > 0 {
			if i%17 == 0 {
				b.WriteString("\n\t")
			} else {
				b.WriteByte(' ')
			}
		}
		w := words[i%len(words)]
		if upper && i%5 == 0 {
			w = strings.ToUpper(w)
		}
		b.WriteString(w)
	}
	return b.String()
}

func BenchmarkText200Words(b *testing.B) {
	b.Run("ascii-dirty", func(b *testing.B) {
		s := doc200(true)
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			_ = Text(s, Options{StripPunct: true})
		}
	})
	b.Run("ascii-dirty-default", func(b *testing.B) {
		s := doc200(true)
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			_ = Text(s, Options{})
		}
	})
	b.Run("ascii-clean", func(b *testing.B) {
		s := Text(doc200(false), Options{})
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			_ = Text(s, Options{})
		}
	})
	b.Run("cyrillic", func(b *testing.B) {
		s := strings.Repeat("Привет, МИР как дела ", 50)
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			_ = Text(s, Options{StripPunct: true})
		}
	})
	b.Run("cjk", func(b *testing.B) {
		s := strings.Repeat("我们的文本是一个例子，不是吗？テキストの例です。", 20)
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			_ = Text(s, Options{})
		}
	})
}

// TestLowerCaseYieldsStarters backs rebuild's shortcut: lower-casing an NFKC rune
// always gives an NFKC rune that does not combine with what precedes it, so only
// a following combining rune can make a second NFKC pass necessary.
func TestLowerCaseYieldsStarters(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		l := unicode.ToLower(r)
		if l == r || !norm.NFKC.IsNormalString(string(r)) {
			continue
		}
		ls := string(l)
		if !norm.NFKC.IsNormalString(ls) || !norm.NFKC.PropertiesString(ls).BoundaryBefore() {
			t.Fatalf("ToLower(%U) = %U is not an NFKC starter", r, l)
		}
	}
}

// TestClassTableMatchesUnicode checks the precomputed fast paths against the
// unicode package for every rune they cover.
func TestClassTableMatchesUnicode(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		cls, ok := class(r)
		if !ok {
			continue
		}
		var want uint8
		switch {
		case unicode.IsSpace(r):
			want = clsSpace
		case unicode.IsPunct(r) || unicode.IsSymbol(r):
			want = clsPunct
		case unicode.ToLower(r) != r:
			want = clsUpper
		}
		if cls != want {
			t.Fatalf("class(%U) = %d, unicode says %d", r, cls, want)
		}
		if cls == clsUpper && lowerTable[r] != 0 && rune(lowerTable[r]) != unicode.ToLower(r) {
			t.Fatalf("lowerTable[%U] = %U, want %U", r, lowerTable[r], unicode.ToLower(r))
		}
	}
}

func TestIsASCII(t *testing.T) {
	base := "abcdefghijklmnopqrstuvwxyz0123456789"
	for n := 0; n <= len(base); n++ {
		assert.True(t, isASCII(base[:n]))
		for pos := 0; pos < n; pos++ {
			s := base[:pos] + "\x80" + base[pos+1:n]
			assert.False(t, isASCII(s), "high byte at %d of %d", pos, n)
		}
	}
}

// TestNFKCInertPairsAreNFKC backs the NFKC shortcut: composition joins adjacent runes
// when all have combining class 0, so a text of inert runes is in NFKC exactly when
// every adjacent pair is. Every pair of inert runes below tableSize is checked, with
// samples of the CJK and Hangul blocks, and a pair is never falsely inert.
func TestNFKCInertPairsAreNFKC(t *testing.T) {
	var inert []rune
	for r := rune(0); r < tableSize; r++ {
		if nfkcInert[r] {
			inert = append(inert, r)
		}
	}
	inert = append(inert, 0x4E00, 0x6587, 0x9FFF, 0xAC00, 0xAC01, 0xD7A3)
	if len(inert) < 1000 {
		t.Fatalf("only %d inert runes: the table is not what the shortcut expects", len(inert))
	}
	buf := make([]byte, 0, 8)
	for _, a := range inert {
		for _, b := range inert {
			buf = utf8.AppendRune(utf8.AppendRune(buf[:0], a), b)
			if !isNFKCInert(string(buf)) || !norm.NFKC.IsNormal(buf) {
				t.Fatalf("%U %U: inert %v, NFKC %v", a, b, isNFKCInert(string(buf)), norm.NFKC.IsNormal(buf))
			}
		}
	}
	// Runes that NFKC changes or that compose with what precedes them are not inert.
	for _, s := range []string{"ﬁ", "e\u0301", "\u00A0", "\u212B", "ᄀ", "\u1161", "가\u11A8", "²"} {
		if isNFKCInert(s) {
			t.Errorf("%+q counted as inert", s)
		}
	}
}

// TestASCIIWordsMatchReference drives rebuild's eight-bytes-at-a-time path: ASCII text
// of letters of both cases, digits, punctuation, single and double spaces, tabs and
// newlines, at every alignment, must normalize exactly as the reference does.
func TestASCIIWordsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	const alphabet = "abcxyzABCXYZ019 ,.!@[`{~\x7f\t\n"
	var buf []byte
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			if r.IntN(3) == 0 {
				b[i] = ' '
			} else {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
		for _, o := range []Options{{}, {StripPunct: true}} {
			want := reference(string(b), o)
			if got := Text(string(b), o); got != want {
				t.Fatalf("Text(%q, %+v) = %q, want %q", b, o, got, want)
			}
			if got := TextReusing(string(b), o, &buf); got != want {
				t.Fatalf("TextReusing(%q, %+v) = %q, want %q", b, o, got, want)
			}
		}
	}
}

// twoByte decodes exactly the valid two-byte sequences, as utf8 does, whatever follows.
func TestTwoByteIsDecodeRune(t *testing.T) {
	for c0 := range 256 {
		for c1 := range 256 {
			for _, tail := range []string{"", "x", "\x80"} {
				s := string([]byte{byte(c0), byte(c1)}) + tail
				r, ok := twoByte(s, 0)
				want, size := utf8.DecodeRuneInString(s)
				if valid := size == 2 && want != utf8.RuneError; ok != valid || ok && r != want {
					t.Fatalf("twoByte(%q) = %U, %v; utf8 decodes %U (%d bytes)", s, r, ok, want, size)
				}
			}
		}
	}
	_, ok := twoByte("\xd0", 0)
	assert.False(t, ok, "a lead byte at the end of the text")
}

// isNFKCInert reports whether every rune of the valid UTF-8 text s is inert (isInert),
// so that s is already in NFKC (no wide form to narrow either): what the tests hold the
// inert tables to.
func isNFKCInert(s string) bool {
	_, inert, wide := validInert(s)
	return inert && !wide
}
