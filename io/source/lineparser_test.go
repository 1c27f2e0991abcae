package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/record"
)

// TestParsedInLineOrder reads enough lines, good ones between blank and malformed ones and
// of very different lengths, that the parsing pool's chunks finish out of order, and
// requires every record in line order with the counts adding up: what a sequential parse
// gives.
func TestParsedInLineOrder(t *testing.T) {
	const n = 20000
	var b strings.Builder
	want := map[int64]string{} // line -> "doc ID" or "rejected"
	for i := int64(1); i <= n; i++ {
		switch {
		case i%11 == 0:
			b.WriteString("\n")
			want[i] = "rejected"
		case i%7 == 0:
			b.WriteString("{\"id\": \"broken\n")
			want[i] = "rejected"
		default:
			// Every 100th text is long, so its chunk takes longer than the next ones.
			text := strings.Repeat("word ", 1+int(i%100/99)*5000)
			fmt.Fprintf(&b, "{\"id\": \"d%d\", \"text\": %q}\n", i, text)
			want[i] = fmt.Sprintf("doc d%d", i)
		}
	}
	file := write(t, t.TempDir(), "c.jsonl", []byte(b.String()))
	docs, rej, st := readFile(t, file, Config{})
	require.Equal(t, int64(len(docs)), st.Docs)
	require.Equal(t, int64(len(rej)), st.Rejected)
	require.Equal(t, int64(n), st.Docs+st.Rejected)

	got := map[int64]string{}
	last := int64(0)
	for _, d := range docs {
		assert.Greater(t, d.Line, last, "docs out of line order")
		last = d.Line
		got[d.Line] = "doc " + d.ID
		assert.Equal(t, filepath.Base(file), filepath.Base(d.File))
	}
	last = 0
	for _, r := range rej {
		assert.Greater(t, r.Line, last, "rejections out of line order")
		last = r.Line
		got[r.Line] = "rejected"
	}
	assert.Equal(t, want, got)
}

// Under a memory limit the lines read ahead of the record delivered stay within a
// sixteenth of it (InFlightBytes) and one line, however many lines a pool's chunks
// hold: a run of large lines is not all held at once.
func TestLinesInFlightBoundedByTheMemoryLimit(t *testing.T) {
	const limit = 16 << 20 // a sixteenth: 1 MiB, ten of the lines below
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	text := strings.Repeat("word ", 20_000)
	var b strings.Builder
	lines := []int64{}
	for i := range 400 {
		fmt.Fprintf(&b, "{\"id\": \"d%d\", \"text\": %q}\n", i, text)
		lines = append(lines, int64(i+1))
	}
	path := filepath.Join(t.TempDir(), "long.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	line := int64(len(b.String()) / 400)
	start, delivered, most := BytesRead.Load(), int64(0), int64(0)
	ReadLines(context.Background(), path, Config{}, lines, func(record.Doc) {
		delivered += line
		most = max(most, BytesRead.Load()-start-delivered)
	})
	require.Equal(t, 400*line, delivered)
	assert.LessOrEqual(t, most, InFlightBytes()+line)
}
