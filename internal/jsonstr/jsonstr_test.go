package jsonstr

import (
	"encoding/json"
	"strings"
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

// AppendValid replaces invalid bytes as encoding/json decodes them, and copies valid
// text unchanged.
func TestAppendValid(t *testing.T) {
	for _, s := range []string{"", "plain", "héllo ✓ 𝄞", "\xff", "a\xffb", "\xc3", "a\xc3(b", "\xed\xa0\x80", "\xf0\x9f\x98", `{"id":"\xfe\xff"}`} {
		got := AppendValid([]byte("<"), []byte(s))
		require.True(t, utf8.Valid(got), "%q", s)
		var viaJSON string
		require.NoError(t, json.Unmarshal(Append(nil, []byte(s)), &viaJSON))
		assert.Equal(t, "<"+viaJSON, string(got), "%q", s)
		// encoding/json reading the raw bytes as a string sees the same.
		if !strings.ContainsAny(s, `"\`) {
			var decoded string
			require.NoError(t, json.Unmarshal([]byte(`"`+s+`"`), &decoded))
			assert.Equal(t, "<"+decoded, string(got), "%q", s)
		}
		if utf8.ValidString(s) {
			assert.Equal(t, "<"+s, string(got))
		}
	}
}
