package shingle

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// FuzzShingles checks on arbitrary text and sizes that shingling never panics and keeps
// its invariants: Hashes is sorted and distinct and equals the hashes of Strings; Strings
// are distinct substrings of the text; a non-empty text has at least one shingle.
func FuzzShingles(f *testing.F) {
	for _, s := range []string{"", "a", "red blue green", "日本語のテキスト", "быстрая лиса", "a  b\x00c", "\xff\xfe bad"} {
		f.Add(s, 2, false)
		f.Add(s, 3, true)
	}
	f.Add(strings.Repeat("w ", 30)+"end", 20, false) // a window wider than eachWord's stack ring
	f.Fuzz(func(t *testing.T, text string, n int, char bool) {
		if n < 1 || n > 64 {
			return
		}
		o := Options{Kind: Word, N: n}
		if char {
			o.Kind = Char
		}
		strs := Strings(text, o)
		hashes := Hashes(text, o, xxhash.Sum64)
		if !slices.IsSorted(hashes) || len(slices.Compact(slices.Clone(hashes))) != len(hashes) {
			t.Fatalf("hashes not sorted and distinct: %v", hashes)
		}
		want := make([]uint64, 0, len(strs))
		seen := map[string]bool{}
		for _, s := range strs {
			if seen[s] {
				t.Fatalf("duplicate shingle %q", s)
			}
			seen[s] = true
			want = append(want, xxhash.Sum64String(s))
		}
		slices.Sort(want)
		want = slices.Compact(want)
		if !slices.Equal(want, hashes) {
			t.Fatalf("Hashes differ from the hashes of Strings")
		}
		if text != "" && len(strs) == 0 && utf8.ValidString(text) {
			t.Fatalf("non-empty text %q has no shingle", text)
		}
		if !char {
			var got []string
			Each(text, o, func(s string) { got = append(got, s) })
			if want := wordWindows(text, n); !slices.Equal(got, want) {
				t.Fatalf("word %d-shingles of %q: %q, want %q", n, text, got, want)
			}
		}
	})
}

// wordWindows is the definition of word shingles: every run of n consecutive words of
// the text split at each space, or the whole text when it has fewer than n words.
func wordWindows(text string, n int) []string {
	if text == "" {
		return nil
	}
	words := strings.Split(text, " ")
	if len(words) < n {
		return []string{text}
	}
	var out []string
	for i := 0; i+n <= len(words); i++ {
		out = append(out, strings.Join(words[i:i+n], " "))
	}
	return out
}
