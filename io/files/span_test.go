package files

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Spans and plain writes interleave in order, whether the output takes the spans in
// place (a local file) or through a buffer (a compressed one).
func TestCopySpanInterleavesWithWrites(t *testing.T) {
	dir := t.TempDir()
	data := payload()
	in := filepath.Join(dir, "in.jsonl")
	writeFile(t, in, data)
	src, ok, err := OpenSpans(in)
	require.NoError(t, err)
	require.True(t, ok)
	defer src.Close()
	// Out of order and overlapping spans, so a copy that ignored the offset would show.
	spans := [][2]int64{{1000, 70_000}, {5, 10}, {200_000, 100_000}, {1000, 3}}
	var want []byte
	for _, sp := range spans {
		want = append(want, '<')
		want = append(want, data[sp[0]:sp[0]+sp[1]]...)
	}
	want = append(want, '>')
	for _, name := range []string{"out.jsonl", "out.jsonl.gz", "out.jsonl.zst"} {
		out := filepath.Join(dir, name)
		w, err := Create(context.Background(), out)
		require.NoError(t, err)
		inPlace := w.(*writeCloser).file != nil
		require.Equal(t, name == "out.jsonl", inPlace, "%s: spans copied in place", name)
		for _, sp := range spans {
			_, err := w.Write([]byte{'<'})
			require.NoError(t, err)
			require.NoError(t, CopySpan(w, src, sp[0], sp[1]), name)
		}
		_, err = w.Write([]byte{'>'})
		require.NoError(t, err)
		require.NoError(t, w.Close())
		got, err := readAll(t, out)
		require.NoError(t, err)
		assert.True(t, string(got) == string(want), "%s: %d bytes, want %d", name, len(got), len(want))
	}
}

func TestCopySpanPastTheEndIsAnError(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	writeFile(t, in, []byte("0123456789"))
	src, _, err := OpenSpans(in)
	require.NoError(t, err)
	defer src.Close()
	for _, name := range []string{"out.txt", "out.txt.gz"} {
		w, err := Create(context.Background(), filepath.Join(dir, name))
		require.NoError(t, err)
		err = CopySpan(w, src, 8, 5)
		assert.ErrorContains(t, err, "ends 3 bytes early", name)
		assert.ErrorContains(t, err, in, name)
		w.Close()
	}
}

func TestOpenSpansOnlyLocalUncompressed(t *testing.T) {
	dir := t.TempDir()
	gz := filepath.Join(dir, "in.jsonl.gz")
	writeFile(t, gz, []byte("x"))
	for _, p := range []string{gz, "gs://bucket/in.jsonl", "s3://bucket/in.jsonl"} {
		f, ok, err := OpenSpans(p)
		assert.NoError(t, err, p)
		assert.False(t, ok, p)
		assert.Nil(t, f, p)
	}
	missing := filepath.Join(dir, "missing.jsonl")
	_, ok, err := OpenSpans(missing)
	assert.True(t, ok)
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.ErrorContains(t, err, missing)
}
