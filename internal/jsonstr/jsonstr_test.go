package jsonstr

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every byte string decodes back (with invalid UTF-8 as U+FFFD) and matches
// encoding/json's output once its HTML escaping is turned off.
func TestAppendMatchesEncodingJSON(t *testing.T) {
	for _, in := range []string{"", "plain", "a\"b\\c\n\t\r\b\f\x01\x1f\x7f", "é 中文 </script> & <b>", "bad \xff\xfe utf8", "\u2028\u2029"} {
		got := Append(nil, []byte(in))
		var back string
		require.NoError(t, json.Unmarshal(got, &back), "%q", got)
		want := in
		if !utf8.ValidString(in) {
			want = string([]rune(in)) // invalid bytes become U+FFFD, as json.Marshal does
		}
		assert.Equal(t, want, back)
		var buf jsonBuf
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(in))
		assert.Equal(t, string(buf[:len(buf)-1]), string(got), "%q", in)
	}
}

type jsonBuf []byte

func (b *jsonBuf) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }
