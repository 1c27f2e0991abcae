// Package shingle cuts normalized text into shingles (word or character n-grams)
// and hashes them into the 64-bit sets that MinHash signs and exact Jaccard
// compares.
//
// Input must be the output of normalize.Text: words separated by exactly one
// ASCII space, no leading or trailing space. Then every word n-gram (N words
// joined by one space) and every character n-gram (N runes, spaces included) is
// a substring of the input, so shingles are produced as substrings: no shingle
// is ever copied or allocated.
//
// Short texts: a non-empty text with fewer than N words (character
// mode: fewer than N runes) has no n-gram; its whole normalized text is then its
// one shingle, so short documents still take part in deduplication. The empty
// text has the empty shingle set.
package shingle

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/minhash"
)

// Kind selects word or character n-grams.
type Kind uint8

const (
	// Word n-grams: N consecutive words joined by one space (the default).
	Word Kind = iota
	// Char n-grams: N consecutive runes, spaces included; for CJK, Thai or code,
	// where words are not separated by spaces.
	Char
)

// String returns the flag spelling: "word" or "char".
func (k Kind) String() string {
	switch k {
	case Word:
		return "word"
	case Char:
		return "char"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind parses "word" or "char" (the --shingle flag's values).
func ParseKind(s string) (Kind, error) {
	switch s {
	case "word":
		return Word, nil
	case "char":
		return Char, nil
	}
	return 0, fmt.Errorf("shingle kind %q: want \"word\" or \"char\"", s)
}

// MarshalText implements encoding.TextMarshaler (for flag.TextVar and JSON).
func (k Kind) MarshalText() ([]byte, error) {
	if k != Word && k != Char {
		return nil, fmt.Errorf("shingle: invalid kind %d", uint8(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// DefaultN is the default n-gram length (--ngram).
const DefaultN = 5

// Options selects how text is shingled.
type Options struct {
	Kind Kind
	N    int // n-gram length in words or runes, at least 1
}

// DefaultOptions returns word 5-grams.
func DefaultOptions() Options { return Options{Kind: Word, N: DefaultN} }

// Validate reports whether o can be used; Each, Strings and Hashes panic on
// options that fail it, so check configuration once, up front.
func (o Options) Validate() error {
	if o.Kind != Word && o.Kind != Char {
		return fmt.Errorf("shingle: invalid kind %d (want word or char)", uint8(o.Kind))
	}
	if o.N < 1 {
		return fmt.Errorf("shingle: n-gram length %d: must be at least 1", o.N)
	}
	return nil
}

func (o Options) mustValidate() {
	if err := o.Validate(); err != nil {
		panic(err)
	}
}

// Each calls fn for every shingle of norm in document order; a shingle that
// occurs several times is passed several times. The strings passed share memory
// with norm (they are substrings of it).
func Each(norm string, o Options, fn func(shingle string)) {
	o.mustValidate()
	if norm == "" {
		return
	}
	if o.Kind == Char {
		eachChar(norm, o.N, fn)
		return
	}
	eachWord(norm, o.N, fn)
}

// eachWord slides a window of n words over norm. end is the end of the window's
// last word and next the start of the word after it (len(norm)+1 when none); starts
// rings the window's word starts, so each word is scanned for once, not n times.
func eachWord(norm string, n int, fn func(string)) {
	end, next := 0, 0
	nextWord := func() {
		if j := strings.IndexByte(norm[next:], ' '); j >= 0 {
			end, next = next+j, next+j+1
		} else {
			end, next = len(norm), len(norm)+1
		}
	}
	var small [16]int
	starts := small[:]
	if n > len(small) {
		starts = make([]int, n)
	}
	for w := range n {
		if next > len(norm) {
			fn(norm) // fewer than n words: the whole text is the one shingle
			return
		}
		starts[w] = next
		nextWord()
	}
	fn(norm[:end])
	// starts[old] is the window's first word; a new word takes its slot as it leaves.
	for old := 0; next <= len(norm); {
		starts[old] = next
		nextWord()
		if old++; old == n {
			old = 0
		}
		fn(norm[starts[old]:end])
	}
}

// runeLen returns the byte length of the rune starting s (1 for ASCII).
func runeLen(s string) int {
	if s[0] < utf8.RuneSelf {
		return 1
	}
	_, size := utf8.DecodeRuneInString(s)
	return size
}

// eachChar slides a window of n runes over norm.
func eachChar(norm string, n int, fn func(string)) {
	end := 0
	for range n {
		if end >= len(norm) {
			fn(norm) // fewer than n runes
			return
		}
		end += runeLen(norm[end:])
	}
	start := 0
	fn(norm[start:end])
	for end < len(norm) {
		end += runeLen(norm[end:])
		start += runeLen(norm[start:])
		fn(norm[start:end])
	}
}

// estimate is an upper bound on the number of shingles, for preallocation.
func estimate(norm string, o Options) int {
	if norm == "" {
		return 0
	}
	units := len(norm) // bytes bound runes
	if o.Kind == Word {
		units = strings.Count(norm, " ") + 1
	}
	return max(1, units-o.N+1)
}

// Strings returns the distinct shingles of norm in order of first appearance.
// They are substrings of norm.
func Strings(norm string, o Options) []string {
	o.mustValidate()
	out := make([]string, 0, estimate(norm, o))
	seen := make(map[string]struct{}, cap(out))
	Each(norm, o, func(s string) {
		if _, dup := seen[s]; !dup {
			seen[s] = struct{}{}
			out = append(out, s)
		}
	})
	return out
}

// Hashes returns the shingle-hash set of norm: sum of each shingle's UTF-8
// bytes, sorted ascending, duplicates removed. This set is what MinHash signs
// and what exact Jaccard (package verify) compares.
//
// sum receives a view of norm's own bytes (no copy): it must not modify or
// retain them, which hash functions such as xxhash.Sum64 do not.
func Hashes(norm string, o Options, sum func([]byte) uint64) []uint64 {
	out := AppendHashes(make([]uint64, 0, estimate(norm, o)), norm, o, sum)
	hashsort.Uint64s(out)
	return slices.Compact(out)
}

// AppendHashes appends the hash of every shingle of norm to dst, in document order and
// with repeats, for callers that need the set but not its order (Distinct removes the
// repeats in linear time; MinHash does not care about order).
func AppendHashes(dst []uint64, norm string, o Options, sum func([]byte) uint64) []uint64 {
	o.mustValidate()
	if o.Kind == Word {
		return appendWordHashes(dst, norm, o.N, sum)
	}
	Each(norm, o, func(s string) {
		dst = append(dst, sum(unsafe.Slice(unsafe.StringData(s), len(s))))
	})
	return dst
}

// appendWordHashes is AppendHashes for word n-grams (the shingles eachWord passes), in
// one loop without a callback: a call per shingle is a large share of hashing one.
func appendWordHashes(dst []uint64, norm string, n int, sum func([]byte) uint64) []uint64 {
	if norm == "" {
		return dst
	}
	b := unsafe.Slice(unsafe.StringData(norm), len(norm))
	// starts rings the window's word starts; the window ends where its last word does.
	var small [16]int
	starts := small[:]
	if n > len(small) {
		starts = make([]int, n)
	}
	next, words, slot := 0, 0, 0 // next is where the next word starts; slot its ring slot
	for next <= len(b) {
		end := indexSpace(b, next)
		starts[slot] = next
		if slot++; slot == n {
			slot = 0
		}
		// The slot the next word will take holds the start of the window's first word.
		if words++; words >= n {
			dst = append(dst, sum(b[starts[slot]:end]))
		}
		next = end + 1
	}
	if words < n {
		dst = append(dst, sum(b)) // fewer than n words: the whole text is the one shingle
	}
	return dst
}

// indexSpace returns the index of the first space in b at or after i, or len(b). It
// tests eight bytes at a time in registers: words are a few bytes long, and a call to
// bytes.IndexByte per word costs more than the search itself.
func indexSpace(b []byte, i int) int {
	const ones, highs, spaces = 0x0101010101010101, 0x8080808080808080, 0x2020202020202020
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:]) ^ spaces // a space becomes a zero byte
		// The lowest marked byte is the first zero byte exactly (a borrow only marks
		// bytes above it).
		if m := (x - ones) &^ x & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] == ' ' {
			return i
		}
	}
	return len(b)
}

// SetHash returns a 64-bit fingerprint of a shingle-hash set given in any order, each
// value once. Documents with equal sets (exact duplicates after normalization) get
// equal fingerprints, which lets the pipeline collapse them before MinHash; a
// fingerprint collision between different sets would merge them, with probability
// about k²/2⁶⁵ for k distinct sets.
func SetHash(hashes []uint64) uint64 { return SetHashSeed(hashes, 0) }

// SetHashSeed is SetHash under another seed: two seeds give two independent
// fingerprints, whose 128 bits together make a collision among a billion sets about
// 10⁻²⁰ likely. The fingerprint is the sum of a 64-bit mix of each value, so it needs no
// sorted input and the featurizing pass need not sort a document's set.
func SetHashSeed(hashes []uint64, seed uint64) uint64 {
	var sum uint64
	for _, h := range hashes {
		// Fmix64 is a bijection mixing every bit, so the sum behaves like a sum of random
		// values; the odd constant keeps the empty set and {0} apart (Fmix64(0) = 0).
		sum += minhash.Fmix64((h ^ seed) + 0x9e3779b97f4a7c15)
	}
	return sum
}

// Distinct removes repeated values from shingle hashes in linear time, keeping each
// value's first occurrence in place. It owns a scratch table, reused across calls: one
// Distinct per goroutine.
type Distinct struct {
	table []uint64 // open addressing; 0 marks an empty slot, so the value 0 is tracked apart
}

// Keep returns h without its repeats (h's own backing array, first occurrences in order).
func (d *Distinct) Keep(h []uint64) []uint64 {
	if len(h) < 2 {
		return h
	}
	bits := 1
	for 1<<bits < 2*len(h) {
		bits++
	}
	size := 1 << bits
	if cap(d.table) < size {
		d.table = make([]uint64, size)
	}
	table := d.table[:size]
	clear(table)
	mask, shift := uint64(size-1), uint(64-bits)
	n, zero := 0, false
	for _, v := range h {
		if v == 0 {
			if zero {
				continue
			}
			zero = true
		} else {
			// Fibonacci hashing spreads even small or patterned values over the table.
			i := (v * 0x9e3779b97f4a7c15) >> shift
			for table[i] != 0 && table[i] != v {
				i = (i + 1) & mask
			}
			if table[i] == v {
				continue
			}
			table[i] = v
		}
		h[n] = v
		n++
	}
	return h[:n]
}
