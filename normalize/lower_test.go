package normalize

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLowerCaseDeviationFromPython pins the documented deviation from Python's
// str.lower(): case mapping is per rune (Unicode's simple mapping, unicode.ToLower),
// without the full mapping's context. Python gives 'İ'.lower() == "i\u0307" and
// 'ΟΔΟΣ'.lower() == "οδος" (final sigma); neardup gives "i" and "οδοσ". Changing this
// changes shingles, so it must be a deliberate, documented decision.
func TestLowerCaseDeviationFromPython(t *testing.T) {
	for _, tc := range []struct{ in, want, python string }{
		{"İ", "i", "i\u0307"},
		{"İSTANBUL", "istanbul", "i\u0307stanbul"},
		{"ΟΔΟΣ ΣΑΣ Σ", "οδοσ σασ σ", "οδος σας σ"},
		{"ΟΔΟΣ.", "οδοσ.", "οδος."},
		{"ΣΑ", "σα", "σα"},                                     // not final: the same in both
		{"RED BLUE GREEN", "red blue green", "red blue green"}, // ASCII: the same in both
	} {
		assert.Equal(t, tc.want, Text(tc.in, Options{}), "%q (Python: %q)", tc.in, tc.python)
	}
}
