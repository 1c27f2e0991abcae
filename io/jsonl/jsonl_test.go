package jsonl

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseGood(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		id        string
		hasID     bool
		text      string
		invalid   bool
	}{
		{"plain", `{"id": "D1", "text": "red blue green"}`, "D1", true, "red blue green", false},
		{"order and extra fields", `{"meta": {"a": [1, 2.5e3, true, null, {"x": "}"}]}, "text": "t", "n": -0.5, "id": "x"}`, "x", true, "t", false},
		{"integer id", `{"id": 42, "text": "t"}`, "42", true, "t", false},
		{"negative and huge integer id", `{"id": -123456789012345678901234567890, "text": "t"}`, "-123456789012345678901234567890", true, "t", false},
		{"zero id", `{"id": 0, "text": "t"}`, "0", true, "t", false},
		{"missing id", `{"text": "t"}`, "", false, "t", false},
		{"null id", `{"id": null, "text": "t"}`, "", false, "t", false},
		{"empty text", `{"id": "a", "text": ""}`, "a", true, "", false},
		{"escapes", `{"text": "a\"b\\c\/d\b\f\n\r\t\u00e9\u4e2d"}`, "", false, "a\"b\\c/d\b\f\n\r\té中", false},
		{"surrogate pair", `{"text": "\ud83d\ude00"}`, "", false, "😀", false},
		{"NUL escape kept", `{"text": "a\u0000b"}`, "", false, "a\x00b", false},
		{"raw UTF-8", `{"text": "привет 世界"}`, "", false, "привет 世界", false},
		{"duplicate key: last wins", `{"text": "first", "text": "second"}`, "", false, "second", false},
		{"whitespace around", " \t{ \"text\" : \"t\" } \r\n", "", false, "t", false},
		{"escaped key", `{"te\u0078t": "t"}`, "", false, "t", false},
		{"key case matters", `{"Text": "no", "text": "yes"}`, "", false, "yes", false},
		{"invalid UTF-8 replaced", "{\"text\": \"a\xffb\xc3\"}", "", false, "a\uFFFDb\uFFFD", true},
		{"invalid UTF-8 with escapes", "{\"text\": \"\\n\xff\"}", "", false, "\n\uFFFD", true},
		{"lone high surrogate", `{"text": "a\ud800b"}`, "", false, "a\uFFFDb", true},
		{"lone low surrogate", `{"text": "\udc00"}`, "", false, "\uFFFD", true},
		{"high then non-low escape", `{"text": "\ud800\u0041"}`, "", false, "\uFFFDA", true},
		{"invalid UTF-8 elsewhere is not counted", "{\"x\": \"\xff\", \"text\": \"ok\"}", "", false, "ok", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseRecord([]byte(tc.raw), "id", "text")
			require.NoError(t, err)
			assert.Equal(t, tc.id, r.ID)
			assert.Equal(t, tc.hasID, r.HasID)
			assert.Equal(t, tc.text, r.Text)
			assert.Equal(t, tc.invalid, r.InvalidUTF8)

			id, hasID, text, err := Parse([]byte(tc.raw), "id", "text")
			require.NoError(t, err)
			assert.Equal(t, []any{tc.id, tc.hasID, tc.text}, []any{id, hasID, text})

			id, hasID, err = ParseID([]byte(tc.raw), "id")
			require.NoError(t, err)
			assert.Equal(t, []any{tc.id, tc.hasID}, []any{id, hasID}, "ParseID")

			in, err := ParseRecordInPlace([]byte(tc.raw), "id", "text")
			require.NoError(t, err)
			assert.Equal(t, r, in, "in place")
		})
	}
}

// In place, a text shares the record's memory, decoded over its own escapes; a text
// whose invalid bytes grow into U+FFFD cannot be, and is decoded into memory of its own.
func TestParseInPlaceSharesTheRecord(t *testing.T) {
	within := func(s string, raw []byte) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		b := uintptr(unsafe.Pointer(&raw[0]))
		return p >= b && p+uintptr(len(s)) <= b+uintptr(len(raw))
	}
	for _, tc := range []struct {
		raw, text string
		shared    bool
	}{
		{`{"id": "a", "text": "plain words"}`, "plain words", true},
		{`{"text": "two\nlines \u00e9\ud83d\ude00 \"q\"", "id": "b"}`, "two\nlines é😀 \"q\"", true},
		{"{\"text\": \"bad \xff byte\\n\"}", "bad \uFFFD byte\n", false},
	} {
		raw := []byte(tc.raw)
		r, err := ParseRecordInPlace(raw, "id", "text")
		require.NoError(t, err)
		assert.Equal(t, tc.text, r.Text)
		assert.Equal(t, tc.shared, within(r.Text, raw), "%s: text shares the record", tc.raw)
	}
}

// ParseID reads the id alone: a record without a usable text still has one, and an
// invalid record or id is still an error.
func TestParseIDIgnoresTheText(t *testing.T) {
	for raw, want := range map[string]string{`{"id": "a"}`: "a", `{"id": 7, "text": 3}`: "7", `{"text": [1], "id": "b"}`: "b"} {
		id, hasID, err := ParseID([]byte(raw), "id")
		require.NoError(t, err, raw)
		assert.True(t, hasID)
		assert.Equal(t, want, id)
	}
	for _, raw := range []string{`{"id": "a"`, `{"id": 1.5}`, `{"id": true}`, `["id"]`} {
		_, _, err := ParseID([]byte(raw), "id")
		assert.Error(t, err, raw)
	}
}

func TestParseCustomFields(t *testing.T) {
	r, err := ParseRecord([]byte(`{"id": "no", "text": 5, "doc_id": 7, "content": "c"}`), "doc_id", "content")
	require.NoError(t, err)
	assert.Equal(t, Record{ID: "7", HasID: true, Text: "c"}, r)

	r, err = ParseRecord([]byte(`{"body": "same field"}`), "body", "body")
	require.NoError(t, err)
	assert.Equal(t, Record{ID: "same field", HasID: true, Text: "same field"}, r)
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, raw, want string }{
		{"empty", ``, `invalid JSON: unexpected end of input`},
		{"truncated object", `{"id": "a", "text": "b`, `invalid JSON: unexpected end of input`},
		{"truncated after comma", `{"text": "b",`, `invalid JSON: unexpected end of input`},
		{"garbage", `hello`, `invalid JSON: invalid character 'h' looking for beginning of value at offset 0`},
		{"single quotes", `{'text': 'x'}`, `invalid JSON: invalid character '\'' looking for beginning of object key string at offset 1`},
		{"trailing comma", `{"text": "x",}`, `invalid JSON: invalid character '}' looking for beginning of object key string at offset 13`},
		{"missing colon", `{"text" "x"}`, `invalid JSON: invalid character '"' after object key at offset 8`},
		{"trailing data", `{"text": "x"} {"text": "y"}`, `invalid JSON: invalid character '{' after top-level value at offset 14`},
		{"bad escape", `{"text": "\x"}`, `invalid JSON: invalid character 'x' in string escape code at offset 11`},
		{"bad unicode escape", `{"text": "\u12g4"}`, `invalid JSON: invalid character 'g' in \u hexadecimal character escape at offset 14`},
		{"raw control char", "{\"text\": \"a\tb\"}", `invalid JSON: invalid character byte 0x09 in string literal at offset 11`},
		{"raw NUL in JSON string", "{\"text\": \"a\x00b\"}", `invalid JSON: invalid character byte 0x00 in string literal at offset 11`},
		{"leading zero", `{"id": 01, "text": "x"}`, `invalid JSON: invalid character '1' after object key:value pair at offset 8`},
		{"bad literal", `{"text": "x", "ok": tru}`, `invalid JSON: invalid character '}' in literal true at offset 23`},
		{"nested garbage", `{"m": [1, 2 3], "text": "x"}`, `invalid JSON: invalid character '3' after array element at offset 12`},
		{"unclosed nesting", `{"m": [[[{"a": 1}]], "text": "x"}`, `invalid JSON: invalid character ':' after array element at offset 27`},
		{"BOM", "\xef\xbb\xbf{\"text\": \"x\"}", `invalid JSON: invalid character byte 0xef looking for beginning of value at offset 0`},
		{"array", `[1, 2]`, `record is not a JSON object (array)`},
		{"string", `"text"`, `record is not a JSON object (string)`},
		{"number", `12`, `record is not a JSON object (number)`},
		{"null", `null`, `record is not a JSON object (null)`},
		{"boolean", `true`, `record is not a JSON object (boolean)`},
		{"missing text", `{"id": "a"}`, `field "text": missing`},
		{"empty object", `{}`, `field "text": missing`},
		{"number text", `{"text": 5}`, `field "text": not a string (number)`},
		{"null text", `{"text": null}`, `field "text": not a string (null)`},
		{"object text", `{"text": {"a": "b"}}`, `field "text": not a string (object)`},
		{"array text", `{"text": ["a"]}`, `field "text": not a string (array)`},
		{"bool text", `{"text": false}`, `field "text": not a string (boolean)`},
		{"duplicate key: last wins for errors too", `{"text": "ok", "text": 1}`, `field "text": not a string (number)`},
		{"float id", `{"id": 1.5, "text": "x"}`, `field "id": not an integer (1.5)`},
		{"exponent id", `{"id": 1e3, "text": "x"}`, `field "id": not an integer (1e3)`},
		{"bool id", `{"id": true, "text": "x"}`, `field "id": not a string or integer (boolean)`},
		{"object id", `{"id": {}, "text": "x"}`, `field "id": not a string or integer (object)`},
		{"invalid JSON beats field errors", `{"text": 5, "x": }`, `invalid JSON: invalid character '}' looking for beginning of value at offset 17`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := Parse([]byte(tc.raw), "id", "text")
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			if strings.HasPrefix(tc.want, "invalid JSON") {
				assert.False(t, json.Valid([]byte(tc.raw)), "encoding/json agrees the record is invalid")
			} else {
				assert.True(t, json.Valid([]byte(tc.raw)), "encoding/json agrees the record is valid JSON")
			}
		})
	}
}

func TestDeepNestingDoesNotOverflow(t *testing.T) {
	deep := `{"m": ` + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + `, "text": "ok"}`
	r, err := ParseRecord([]byte(deep), "id", "text")
	require.NoError(t, err)
	assert.Equal(t, "ok", r.Text)

	_, _, _, err = Parse([]byte(`{"text": "x", "m": `+strings.Repeat("[", 1_000_000)), "id", "text")
	require.EqualError(t, err, "invalid JSON: unexpected end of input")
}

func TestHugeRecord(t *testing.T) {
	text := strings.Repeat("word ", 10<<20) // 50 MiB
	raw := append(append([]byte(`{"id": "big", "meta": "`), strings.Repeat("m", 1<<20)...), `", "text": "`+text+`"}`...)
	r, err := ParseRecord(raw, "id", "text")
	require.NoError(t, err)
	assert.Equal(t, "big", r.ID)
	assert.Equal(t, len(text), len(r.Text))
	assert.True(t, r.Text == text)
}

// oracle decodes a record with encoding/json: the independent reference for ParseRecord.
func oracle(raw []byte, idField, textField string) (text any, textOK bool, id any, idOK bool, obj bool) {
	var m map[string]json.RawMessage
	// A top-level null unmarshals into a nil map without an error; it is no object.
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, false, nil, false, false
	}
	decode := func(k string) (any, bool) {
		v, ok := m[k]
		if !ok {
			return nil, false
		}
		var x any
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		if err := d.Decode(&x); err != nil {
			panic(err)
		}
		return x, true
	}
	text, textOK = decode(textField)
	id, idOK = decode(idField)
	return text, textOK, id, idOK, true
}

func FuzzParseMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"id": "D1", "text": "red blue green"}`, `{"id": 42, "text": "t"}`, `{"text": 1.5}`,
		`{"id": 1e3, "text": "x"}`, `{"text": "\ud800\u0041"}`, "{\"text\": \"a\xffb\"}", `[1]`, `{"text": "x",}`,
		`{"m": [[{"a": {"b": [null, true, false, -0.0e+1]}}]], "text": "\u00e9\n", "id": null}`,
		`{"text": "a", "text": "b"}`, `  {"id":"","text":""}  `, `{"id": -0, "text": ""}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := ParseRecord(raw, "id", "text")
		in, inErr := ParseRecordInPlace(bytes.Clone(raw), "id", "text")
		require.Equal(t, err, inErr, "in place")
		require.Equal(t, r, in, "in place")
		valid := json.Valid(raw)
		if err != nil && strings.HasPrefix(err.Error(), "invalid JSON") {
			require.False(t, valid, "rejected valid JSON: %v", err)
			return
		}
		require.True(t, valid, "accepted invalid JSON")
		text, textOK, id, _, obj := oracle(raw, "id", "text")
		if !obj {
			require.Error(t, err)
			assert.Contains(t, err.Error(), "not a JSON object")
			return
		}
		ts, isString := text.(string)
		if !textOK || !isString {
			require.Error(t, err)
			assert.Contains(t, err.Error(), `field "text"`)
			return
		}
		switch v := id.(type) {
		case nil: // missing or null
			require.NoError(t, err)
			assert.False(t, r.HasID)
		case string:
			require.NoError(t, err)
			assert.Equal(t, v, r.ID)
			assert.True(t, r.HasID)
		case json.Number:
			if strings.ContainsAny(string(v), ".eE") {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, string(v), r.ID)
		default:
			require.Error(t, err)
			return
		}
		assert.Equal(t, ts, r.Text)
		lower := strings.ToLower(string(raw))
		if !strings.Contains(lower, "\uFFFD") && !strings.Contains(lower, `\ufffd`) {
			// With no U+FFFD in the input, one in the text can only be a replacement.
			assert.Equal(t, strings.Contains(r.Text, "\uFFFD"), r.InvalidUTF8)
		}
	})
}

// plainEnd must stop exactly where the byte-at-a-time scan stops, with the same OR of
// the bytes before, wherever the special byte falls in its eight-byte word.
func TestPlainEndMatchesByteScan(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	alphabet := []byte{'a', 'Z', ' ', 0x7f, 0x80, 0xc3, 0xa9, 0xff, '"', '\\', 0x00, 0x1f, 0x20, 0x21, '#', '[', ']'}
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			if r.IntN(10) == 0 {
				b[i] = alphabet[r.IntN(len(alphabet))]
			} else {
				b[i] = byte(0x20 + r.IntN(0x60)) // mostly plain ASCII, some '"' and '\\'
			}
		}
		start := 0
		if len(b) > 0 {
			start = r.IntN(len(b))
		}
		want, wantSeen := start, byte(0)
		for want < len(b) && !special[b[want]] {
			wantSeen |= b[want]
			want++
		}
		got, seen := plainEnd(b, start)
		if got != want || seen != wantSeen {
			t.Fatalf("plainEnd(%q, %d) = %d, %#x; want %d, %#x", b, start, got, seen, want, wantSeen)
		}
	}
}
