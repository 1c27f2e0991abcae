package elem

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRuneCount agrees with utf8.RuneCountInString on ASCII, multi-byte and invalid
// text, at every alignment of the eight-byte fast path.
func TestRuneCount(t *testing.T) {
	pieces := []string{"a", "word ", "Zz09", "ж", "日本", "é", "\xff", "\xe6\x97", "\x80", "🙂", strings.Repeat("x", 17)}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		var sb strings.Builder
		for range rng.IntN(30) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := sb.String()
		for cut := 0; cut < min(len(s), 9); cut++ {
			if got, want := RuneCount(s[cut:]), int64(utf8.RuneCountInString(s[cut:])); got != want {
				t.Fatalf("RuneCount(%q) = %d, want %d", s[cut:], got, want)
			}
		}
	}
}

// BenchmarkRuneCount counts the runes of a 1.4 KB text in Cyrillic and in ASCII.
func BenchmarkRuneCount(b *testing.B) {
	for _, c := range []struct{ name, sentence string }{
		{"cyrillic", "Съешь же ещё этих мягких французских булок, да выпей чаю. "},
		{"ascii", "The quick brown fox jumps over the lazy dog and again. "},
	} {
		s := strings.Repeat(c.sentence, 25)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				RuneCount(s)
			}
		})
	}
}
