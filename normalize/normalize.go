// Package normalize canonicalizes document text before shingling.
//
// Near-duplicate detection compares shingles, so two texts that differ only in
// Unicode representation, letter case, punctuation (optionally) or spacing must
// produce identical shingles. Text applies, in this order:
//
//  1. Unicode NFKC: compatibility forms fold to their plain equivalents
//     ('ﬁ' → "fi", fullwidth 'Ａ' → 'A', NBSP → ' ', composed accents).
//  2. Lower-casing, after NFKC (so 'Ａ' also becomes 'a') and before shingling:
//     the seed's 'RED BLUE GREEN' must match 'red blue green'. Case mapping is
//     per rune (unicode.ToLower); it equals Python's str.lower() on ASCII and on
//     most scripts, but not in Python's context-dependent special cases (final
//     sigma, 'İ' → "i̇"). Lower-casing can undo NFKC ('İ' followed by a combining
//     acute lower-cases to 'i' + U+0301, which composes to 'í'), so when a
//     non-ASCII rune changed case NFKC is applied once more; this keeps Text
//     idempotent: Text(Text(s)) == Text(s).
//  3. Optional punctuation stripping: with StripPunct every rune for which
//     unicode.IsPunct or unicode.IsSymbol holds is replaced by a space, not
//     deleted, so "a,b" becomes "a b" rather than gluing into "ab" (and "don't"
//     becomes "don t"). Symbols are included because '$', '+', '|', '©', emoji and
//     the like carry no more wording than punctuation does.
//  4. Whitespace folding: every run of Unicode whitespace (unicode.IsSpace: tabs,
//     newlines, NBSP, ideographic space, …) becomes one ASCII space, and leading
//     and trailing whitespace is trimmed. The output therefore has single spaces
//     between words, which the shingle package relies on.
//
// Text never fails and never drops a document: the worst case is an empty string.
// Each byte of invalid UTF-8 becomes U+FFFD.
package normalize

import (
	"encoding/binary"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// Options selects the optional normalization steps.
type Options struct {
	// StripPunct replaces punctuation and symbol runes with spaces.
	StripPunct bool
}

// Rune classes, precomputed for runes below tableSize (ASCII, Latin, Greek,
// Cyrillic, Armenian, Hebrew, Arabic) so the common scripts need a table lookup
// instead of the binary searches behind unicode.IsSpace/IsPunct/ToLower.
const (
	clsKeep  = iota // copied as is
	clsUpper        // lower-cased (via lowerTable, or unicode.ToLower when 0)
	clsSpace        // whitespace: a separator
	clsPunct        // punctuation or symbol: a separator when StripPunct
)

const tableSize = 0x800

var (
	classTable [tableSize]uint8
	lowerTable [tableSize]uint16 // ToLower(r) when it is below tableSize, else 0
	// nfkcInert marks the runes below tableSize that NFKC leaves alone wherever they
	// stand: normalized by themselves, combining class 0, and not composing with what
	// precedes them. A text made of such runes is in NFKC (the quick check says yes)
	// and skips the norm package, whose per-rune trie lookups cost more than the rest
	// of normalizing a Cyrillic or Greek text.
	nfkcInert [tableSize]bool
	// kanaInert is nfkcInert for U+3000..U+30FF: CJK punctuation ('。', '、'), Hiragana
	// and Katakana, which Chinese and Japanese text is full of.
	kanaInert [0x100]bool
)

// inert is the property nfkcInert and kanaInert hold (see there).
func inert(r rune) bool {
	p := norm.NFKC.PropertiesString(string(r))
	return norm.NFKC.IsNormalString(string(r)) && p.CCC() == 0 && p.BoundaryBefore()
}

func init() {
	for r := range rune(len(kanaInert)) {
		kanaInert[r] = inert(0x3000 + r)
	}
	for r := rune(0); r < tableSize; r++ {
		nfkcInert[r] = inert(r)
		switch {
		case unicode.IsSpace(r):
			classTable[r] = clsSpace
		case unicode.IsPunct(r) || unicode.IsSymbol(r):
			classTable[r] = clsPunct
		case unicode.ToLower(r) != r:
			classTable[r] = clsUpper
			if l := unicode.ToLower(r); l < tableSize {
				lowerTable[r] = uint16(l)
			}
		}
	}
}

// class returns r's class; the caller handles tableSize and above with the
// unicode package except in the caseless, punctuation-free CJK and Hangul blocks.
func class(r rune) (uint8, bool) {
	switch {
	case r < tableSize:
		return classTable[r], true
	case isCJKOrHangul(r):
		return clsKeep, true
	}
	return 0, false
}

// isCJKOrHangul reports whether r is a CJK Unified Ideograph or a Hangul Syllable:
// letters without case, untouched by NFKC wherever they stand.
func isCJKOrHangul(r rune) bool { return 0x4E00 <= r && r <= 0x9FFF || 0xAC00 <= r && r <= 0xD7A3 }

// Text returns the normalized form of s (see the package documentation).
// When s is already normalized it is returned as is, without allocating.
func Text(s string, o Options) string { return text(s, o, nil) }

// TextReusing is Text writing a rebuilt text into *buf (grown as needed), so a caller
// that normalizes text after text allocates nothing per text. The result may share
// *buf's memory: it is valid until buf is used again.
func TextReusing(s string, o Options, buf *[]byte) string { return text(s, o, buf) }

func text(s string, o Options, buf *[]byte) string {
	wide := false // s is NFKC but for wide forms of ASCII, which rebuild narrows
	if !isASCII(s) {
		var valid, inert bool
		valid, inert, wide = validInert(s)
		if !valid {
			s = replaceInvalid(s)
			_, inert, wide = validInert(s)
		}
		if !inert {
			// NFKC returns its input unchanged (no allocation) when already in NFKC.
			s, wide = norm.NFKC.String(s), false
		}
	}
	if !wide && isNormalized(s, o) {
		return s
	}
	var b []byte
	if buf != nil {
		b = (*buf)[:0]
	}
	b, recompose := rebuild(b, s, o, wide)
	if buf != nil {
		*buf = b
	}
	out := ""
	if len(b) > 0 {
		// No copy: b is either fresh or the caller's buffer, which the result may share.
		out = unsafe.String(&b[0], len(b))
	}
	if recompose {
		out = norm.NFKC.String(out)
	}
	return out
}

// replaceInvalid replaces each byte that is not part of a valid UTF-8 sequence
// with U+FFFD (one per byte, as ranging over a Go string does), before NFKC, so
// normalization only ever sees valid text.
func replaceInvalid(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isASCII(s string) bool {
	// Eight bytes at a time: any byte with its high bit set makes the word fail.
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// twoByte decodes the two-byte UTF-8 sequence at s[i] (U+0080..U+07FF: Latin, Greek,
// Cyrillic, Armenian, Hebrew, Arabic) without utf8.DecodeRuneInString's call, a large
// share of normalizing text in those scripts. ok is false for any other byte sequence,
// invalid ones included (0xC0 and 0xC1 start overlong encodings).
func twoByte(s string, i int) (r rune, ok bool) {
	if c := s[i]; c >= 0xC2 && c < 0xE0 && i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
		return rune(c&0x1F)<<6 | rune(s[i+1]&0x3F), true
	}
	return 0, false
}

// isInert reports whether NFKC leaves r alone wherever it stands: nfkcInert below
// tableSize, kanaInert, and the CJK ideographs and Hangul syllables.
func isInert(r rune) bool {
	switch {
	case r < tableSize:
		return nfkcInert[r]
	case 0x3000 <= r && r < 0x3100:
		return kanaInert[r-0x3000]
	}
	return isCJKOrHangul(r)
}

// startsInert reports whether the valid UTF-8 text s starts with an inert rune, which
// composes with nothing before it: a table lookup where the norm package's properties
// cost a trie walk, after every upper-case letter of a Cyrillic or Greek text.
func startsInert(s string) bool {
	if r, ok := twoByte(s, 0); ok {
		return nfkcInert[r]
	}
	r, _ := utf8.DecodeRuneInString(s)
	return isInert(r)
}

// validInert reports whether s is valid UTF-8 and, when it is, whether each of its runes
// is inert or a wide form of ASCII (wideASCII), and whether any is the latter, in one
// pass over the text. Such a text's NFKC is the text with its wide forms narrowed, which
// rebuild does in passing, so the ideographic comma, stop and space of Chinese and
// Japanese text do not send it through the norm package, the costly path.
func validInert(s string) (valid, inert, wide bool) {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		if r, ok := twoByte(s, i); ok {
			i += 2
			if !nfkcInert[r] {
				return utf8.ValidString(s[i:]), false, false
			}
			continue
		}
		if _, ok := wideASCII(s, i); ok {
			i += 3
			wide = true
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return false, false, false
		}
		i += size
		if !isInert(r) {
			return utf8.ValidString(s[i:]), false, false
		}
	}
	return true, true, wide
}

// wideASCII returns the ASCII character NFKC maps the rune at s[i] to when that rune is
// a fullwidth form of ASCII (U+FF01..U+FF5E: '，' → ',', 'Ａ' → 'A') or the ideographic
// space (U+3000 → ' '). Each maps to one ASCII character, which composes with nothing
// before it and has combining class 0; so in a text whose other runes are all inert,
// narrowing these is all NFKC does.
func wideASCII(s string, i int) (byte, bool) {
	if i+2 >= len(s) {
		return 0, false
	}
	switch c1, c2 := s[i+1], s[i+2]; {
	case s[i] == 0xEF && c1 == 0xBC && 0x81 <= c2 && c2 <= 0xBF: // U+FF01..U+FF3F
		return c2 - 0x60, true
	case s[i] == 0xEF && c1 == 0xBD && 0x80 <= c2 && c2 <= 0x9E: // U+FF40..U+FF5E
		return c2 - 0x20, true
	case s[i] == 0xE3 && c1 == 0x80 && c2 == 0x80: // U+3000
		return ' ', true
	}
	return 0, false
}

// isSpaceRune reports whether r becomes a word separator under o.
func isSpaceRune(r rune, o Options) bool {
	return unicode.IsSpace(r) || (o.StripPunct && (unicode.IsPunct(r) || unicode.IsSymbol(r)))
}

// isNormalized reports whether rebuild(s, o) would return s unchanged; checking
// first lets already-clean text (common in re-processed corpora) skip the copy.
func isNormalized(s string, o Options) bool {
	prevSpace := true // a leading space is not allowed
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch classTable[c] {
			case clsUpper:
				return false
			case clsPunct:
				if o.StripPunct {
					return false
				}
			case clsSpace:
				if c != ' ' || prevSpace {
					return false
				}
				prevSpace = true
				continue
			}
			prevSpace = false
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:]) // s is valid UTF-8 here
		i += size
		if cls, ok := class(r); ok {
			if cls == clsKeep || (cls == clsPunct && !o.StripPunct) {
				prevSpace = false
				continue
			}
			return false
		}
		if isSpaceRune(r, o) || unicode.ToLower(r) != r {
			return false
		}
		prevSpace = false
	}
	return !prevSpace || len(s) == 0
}

// plainWord lower-cases eight ASCII bytes at once when rebuild would copy them as they
// are but for case: no control or non-ASCII byte, no punctuation when strip, no two
// spaces in a row, and no space first where a separator may not be written (at the
// start, or after one). Most of an ASCII text goes through here instead of a byte at a
// time.
func plainWord(x uint64, pending, wrote, strip bool) (uint64, bool) {
	const ones, highs, lows = 0x0101010101010101, 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	// in marks the bytes of x in [lo, hi]; exact for ASCII bytes (no carries).
	in := func(lo, hi uint64) uint64 { return (x + ones*(0x80-lo)) &^ (x + ones*(0x80-hi-1)) & highs }
	if x&highs != 0 || (x-ones*0x20)&^x&highs != 0 {
		return 0, false // non-ASCII, or a control byte such as a tab or newline
	}
	v := x ^ (ones * ' ')
	spaces := ^((v&lows + lows) | v | lows) // exactly the high bit of each space byte
	if spaces&(spaces<<8) != 0 || (spaces&0x80 != 0 && (pending || !wrote)) {
		return 0, false
	}
	upper := in('A', 'Z')
	if strip && spaces|upper|in('a', 'z')|in('0', '9') != highs {
		return 0, false // punctuation or a symbol, which strip turns into a separator
	}
	return x | upper>>2, true // 'A'..'Z' lack the 0x20 bit that makes 'a'..'z'
}

// rebuild appends the lower-cased, separator-folded form of s to b. recompose reports
// that a rune changed case right before a rune that may compose with it, after
// which the text may no longer be NFKC.
//
// With wide, the wide forms of ASCII in s (wideASCII) are narrowed first.
func rebuild(b []byte, s string, o Options, wide bool) (_ []byte, recompose bool) {
	// A byte slice, not a strings.Builder, whose per-byte writes cost more than the
	// rest of this loop; append grows it when lower-casing lengthens a rune.
	b = slices.Grow(b, len(s))
	pending := false // a separator was seen after the last written rune
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			x := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
			if w, ok := plainWord(x, pending, len(b) > 0, o.StripPunct); ok {
				if pending && len(b) > 0 {
					b = append(b, ' ')
				}
				b = binary.LittleEndian.AppendUint64(b, w)
				i += 8
				pending = false
				if b[len(b)-1] == ' ' { // a separator, written only if a word follows
					b, pending = b[:len(b)-1], true
				}
				continue
			}
		}
		c, size := s[i], 1
		if wide && c >= utf8.RuneSelf {
			if a, ok := wideASCII(s, i); ok {
				c, size = a, 3
			}
		}
		if c < utf8.RuneSelf {
			i += size
			switch classTable[c] {
			case clsUpper:
				c += 'a' - 'A'
			case clsSpace:
				pending = true
				continue
			case clsPunct:
				if o.StripPunct {
					pending = true
					continue
				}
			}
			if pending && len(b) > 0 {
				b = append(b, ' ')
			}
			pending = false
			b = append(b, c)
			continue
		}
		r, ok := twoByte(s, i)
		size = 2
		if !ok {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		lower := false
		if cls, ok := class(r); ok {
			switch cls {
			case clsSpace:
				pending = true
				continue
			case clsPunct:
				if o.StripPunct {
					pending = true
					continue
				}
			case clsUpper:
				lower = true
			}
		} else if isSpaceRune(r, o) {
			pending = true
			continue
		} else {
			lower = unicode.ToLower(r) != r
		}
		if pending && len(b) > 0 {
			b = append(b, ' ')
		}
		pending = false
		if lower {
			if r < tableSize && lowerTable[r] != 0 {
				r = rune(lowerTable[r])
			} else {
				r = unicode.ToLower(r)
			}
			// Every lower-case mapping yields an NFKC starter (checked over all
			// runes by the tests), so composition can only change if the next
			// rune combines backwards, as U+0301 does after 'İ' → 'i'.
			if i < len(s) && s[i] >= utf8.RuneSelf && !startsInert(s[i:]) && !norm.NFKC.PropertiesString(s[i:]).BoundaryBefore() {
				recompose = true
			}
		}
		b = utf8.AppendRune(b, r)
	}
	return b, recompose
}
