package pipeline

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
			if got, want := runeCount(s[cut:]), int64(utf8.RuneCountInString(s[cut:])); got != want {
				t.Fatalf("runeCount(%q) = %d, want %d", s[cut:], got, want)
			}
		}
	}
}
