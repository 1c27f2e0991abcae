package sink

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkWritePart measures re-reading one file and routing its lines (90% kept, 10%
// removed) into part files.
func BenchmarkWritePart(b *testing.B) {
	const n = 5000
	var sb strings.Builder
	text := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 25)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, `{"id": "doc-%d", "text": "%s"}`+"\n", i, text)
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "bench.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		var p plan
		for l := int64(1); l <= n; l++ {
			e := kept(l)
			if l%10 == 0 {
				e = removedAt(l, fmt.Sprint("doc-", l), "doc-0", 0.9)
			}
			if err := p.add(e); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := writePart(context.Background(), filepath.Join(dir, "tmp"), "jsonl", "", "", path, &p, 0); err != nil {
			b.Fatal(err)
		}
	}
}
