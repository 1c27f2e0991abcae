package query

import (
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hugeLine reads as a JSONL line of a document whose text is n bytes, made as it is
// read, then rest.
func hugeLine(n int, rest string) io.Reader {
	return io.MultiReader(strings.NewReader(`{"id":"huge","text":"`), io.LimitReader(repeatReader('x'), int64(n)),
		strings.NewReader("\"}\n"+rest))
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// A line over MaxLineBytes is answered as an error line naming it, and the lines after
// it are answered as usual (the stream does not stop).
func TestLineOverTheLimitIsAnErrorLine(t *testing.T) {
	in := io.MultiReader(strings.NewReader(`{"id":"a","text":"one two"}`+"\n"),
		hugeLine(MaxLineBytes+1, `{"id":"b","text":"three four"}`+"\n"))
	var got []string
	err := ReadDocs(in, "in.jsonl", Fields{ID: "id", Text: "text"}, func(d Doc) error {
		if d.Err != nil {
			got = append(got, d.Err.Error())
		} else {
			got = append(got, d.ID)
		}
		return nil
	})
	want := []string{"a", "in.jsonl:2: line longer than 67108864 bytes", "b"}
	require.NoError(t, err)
	require.Equal(t, strings.Join(want, "|"), strings.Join(got, "|"))
}

// Reading past a long line holds at most the limit of it, not the line: a line 64 times
// the limit allocates a few times the limit in all.
func TestLongLineIsNotHeld(t *testing.T) {
	const limit = 1 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var lines []int64
	var size int64
	err := ReadLinesMax(hugeLine(64*limit, "{}\n"), "in", limit, func(num int64, b []byte, n int64) error {
		if b == nil {
			lines, size = append(lines, -num), n
		} else {
			lines = append(lines, num)
		}
		return nil
	})
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.True(t, len(lines) == 2 && lines[0] == -1 && lines[1] == 2, "lines %v", lines)
	require.Equal(t, int64(64*limit+len(`{"id":"huge","text":""}`)), size, "the long line's size, without its newline")
	alloc := after.TotalAlloc - before.TotalAlloc
	require.LessOrEqual(t, alloc, uint64(8*limit), "reading past a line of %d bytes allocated %d bytes (limit %d)", 64*limit, alloc, limit)
}
