package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/record"
)

// BenchmarkReadFile measures the whole per-file reader: line splitting, JSONL parsing and
// Doc construction, on web-crawl-shaped records (about 1.5 KB of text plus metadata).
func BenchmarkReadFile(b *testing.B) {
	var sb strings.Builder
	text := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 25)
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&sb, `{"id": "doc-%d", "url": "https://example.com/%d", "meta": {"lang": "en", "score": 0.5}, "text": "%s"}`+"\n", i, i, text)
	}
	path := filepath.Join(b.TempDir(), "bench.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		st := ReadFile(context.Background(), path, Config{}, func(record.Doc) {}, func(r record.Rejected) { b.Fatal(r) })
		if st.Docs != 5000 {
			b.Fatal(st)
		}
	}
}
