package sink

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stdString is encoding/json's rendering without HTML escaping: the reference.
func stdString(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(s))
	return strings.TrimSuffix(b.String(), "\n")
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{"", "plain", `quote " backslash \ slash /`, "\x00\x01\x1f\x7f", "\b\f\n\r\t",
		"<a href='x'>&</a>", "é中😀", "\u2028\u2029", "bad \xff\xfe utf8 \xc3", "\xed\xa0\x80 surrogate bytes"}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab\"\\\x00\n\x1f\x7f\xc3\xa9\xe2\x80\xa8\xff\xf0\x9f\x98\x80<&")
	for i := 0; i < 2000; i++ {
		b := make([]byte, r.IntN(20))
		for k := range b {
			b[k] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		assert.Equal(t, stdString(t, s), string(appendString(nil, []byte(s))), "%q", s)
	}
}

func TestRemovedLine(t *testing.T) {
	e := entry{Line: 4, Kind: kindRemoved, ID: "D4", Cluster: "D1", Similarity: 1}
	got := removedLine(nil, e, "data/a.jsonl", []byte(`{"id": "D4", "text": "RED BLUE GREEN"}`), true)
	assert.Equal(t, `{"id":"D4","cluster":"D1","similarity":1.0,"file":"data/a.jsonl","line":4,"record":{"id": "D4", "text": "RED BLUE GREEN"}}`+"\n", string(got))

	e.Similarity = 2.0 / 3
	got = removedLine(nil, e, "t.txt", []byte("a \"quoted\"\tline"), false)
	assert.Equal(t, `{"id":"D4","cluster":"D1","similarity":0.6666666666666666,"file":"t.txt","line":4,"record":"a \"quoted\"\tline"}`+"\n", string(got))
	assert.True(t, json.Valid(got))
}

func TestRejectedLine(t *testing.T) {
	got := rejectedLine(nil, "a.jsonl", 3, "invalid JSON: unexpected end of input", []byte(`{"text": "cut`))
	assert.Equal(t, `{"file":"a.jsonl","line":3,"reason":"invalid JSON: unexpected end of input","record":"{\"text\": \"cut"}`+"\n", string(got))

	got = rejectedLine(nil, "gone.jsonl", 0, "open error: x", nil)
	assert.Equal(t, `{"file":"gone.jsonl","line":0,"reason":"open error: x"}`+"\n", string(got))

	// 64 KiB - 1 ASCII bytes, then a 2-byte rune straddling the limit: the cut backs up.
	long := strings.Repeat("x", MaxRejectedRecord-1) + "é" + strings.Repeat("y", 1000)
	got = rejectedLine(nil, "big.txt", 9, "r", []byte(long))
	var v struct {
		Record    string
		Truncated bool
	}
	require.NoError(t, json.Unmarshal(got, &v))
	assert.True(t, v.Truncated)
	assert.Equal(t, strings.Repeat("x", MaxRejectedRecord-1), v.Record)

	got = rejectedLine(nil, "fits.txt", 9, "r", []byte(strings.Repeat("z", MaxRejectedRecord)))
	v = struct {
		Record    string
		Truncated bool
	}{}
	require.NoError(t, json.Unmarshal(got, &v))
	assert.False(t, v.Truncated)
	assert.Len(t, v.Record, MaxRejectedRecord)
}
