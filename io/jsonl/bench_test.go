package jsonl

import (
	"encoding/json"
	"strings"
	"testing"
)

// benchRecord is shaped like a web-crawl record: a few KB of text next to metadata.
var benchRecord = []byte(`{"id": "doc-000123", "url": "https://example.com/a/b?c=d", "meta": {"lang": "en", "score": 0.93, "tags": ["a", "b", "c"]}, "text": "` +
	strings.Repeat(`Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. `, 50) + `\n\u00e9 end"}`)

func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(benchRecord)))
	for b.Loop() {
		if _, _, _, err := Parse(benchRecord, "id", "text"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawMessageMap is the baseline the brief allows: map[string]json.RawMessage
// plus decoding the two fields.
func BenchmarkRawMessageMap(b *testing.B) {
	b.SetBytes(int64(len(benchRecord)))
	for b.Loop() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(benchRecord, &m); err != nil {
			b.Fatal(err)
		}
		var id, text string
		if err := json.Unmarshal(m["id"], &id); err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal(m["text"], &text); err != nil {
			b.Fatal(err)
		}
	}
}
