package jsonl

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLeading(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		keys      []string
		want      []string // nil: not ok
	}{
		{"removed line", `{"id":"doc-1","cluster":"doc-0","similarity":1.0,"record":{"id":"doc-1","text":"t"}}`, []string{"id"}, []string{"doc-1"}},
		{"clusters line", `{"cluster":"c1","size":12,"kept":"c1","members":["c1"]}`, []string{"cluster", "size"}, []string{"c1", "12"}},
		{"whitespace", " { \"cluster\" : \"c1\" ,\t\"size\" : -3e2 }", []string{"cluster", "size"}, []string{"c1", "-3e2"}},
		{"escapes decoded", `{"id":"a\"b\u00e9","x":[}`, []string{"id"}, []string{"a\"bé"}},
		{"invalid UTF-8 replaced", "{\"id\":\"a\xffb\"}", []string{"id"}, []string{"a\uFFFDb"}},
		{"the rest is not read", `{"id":"a", this is not JSON`, []string{"id"}, []string{"a"}},
		{"another first key", `{"cluster":"c","id":"a"}`, []string{"id"}, nil},
		{"keys out of order", `{"size":1,"cluster":"c"}`, []string{"cluster", "size"}, nil},
		{"a prefix of the key", `{"ids":"a"}`, []string{"id"}, nil},
		{"escaped key", `{"\u0069d":"a"}`, []string{"id"}, nil},
		{"value not a string or number", `{"id":null}`, []string{"id"}, nil},
		{"object value", `{"id":{"a":1}}`, []string{"id"}, nil},
		{"truncated key", `{"id`, []string{"id"}, nil},
		{"truncated value", `{"id":"a`, []string{"id"}, nil},
		{"one member of two", `{"cluster":"c"}`, []string{"cluster", "size"}, nil},
		{"invalid number", `{"size":-x}`, []string{"size"}, nil},
		{"not an object", `["id","a"]`, []string{"id"}, nil},
		{"empty", ``, []string{"id"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := []string{"before"}
			got, ok := Leading(dst, []byte(tc.raw), tc.keys...)
			if tc.want == nil {
				assert.False(t, ok)
				assert.Equal(t, []string{"before"}, got, "nothing appended when not ok")
				return
			}
			assert.True(t, ok)
			assert.Equal(t, append([]string{"before"}, tc.want...), got)
		})
	}
}

// Where Leading answers, it answers what the whole parse does.
func TestLeadingAgreesWithParseID(t *testing.T) {
	for _, raw := range []string{
		`{"id":"D1","text":"red"}`, `{"id": 42, "text": "t"}`, `{"id":"a\\u00e9\\n","text":"t"}`,
		"{\"id\":\"\xc3\xa9\xff\",\"text\":\"t\"}", `{"id":-12,"text":"t"}`, `{"id":"","text":"t"}`,
	} {
		got, ok := Leading(nil, []byte(raw), "id")
		id, hasID, err := ParseID([]byte(raw), "id")
		assert.NoError(t, err, raw)
		assert.True(t, ok && hasID, raw)
		assert.Equal(t, []string{id}, got, raw)
	}
}
