package source

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/record"
)

// smallCorpus is a few JSONL records, small enough that every offset of its compressed
// form can be truncated or flipped in a test.
func smallCorpus() string {
	var sb strings.Builder
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&sb, "{\"id\": \"r%02d\", \"text\": \"record %d says %s\"}\n", i, i, strings.Repeat("ab", i))
	}
	return sb.String()
}

func compress(t testing.TB, codec, data string) []byte {
	t.Helper()
	var b bytes.Buffer
	switch codec {
	case "gz":
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(data))
		require.NoError(t, zw.Close())
	case "zst":
		zw, err := zstd.NewWriter(&b)
		require.NoError(t, err)
		zw.Write([]byte(data))
		require.NoError(t, zw.Close())
	}
	return b.Bytes()
}

// checkDamageRule is the rule every compressed reader must keep, whatever happened to
// the bytes: either the file reads whole and exactly (want), or the reader reports the
// damage, and then the documents it gave are lines 1..k and its one rejection is line
// k+1 (0 when nothing could be opened). truncated adds that the documents are the
// original ones: cutting a stream cannot change what came before the cut.
func checkDamageRule(t *testing.T, name string, docs []record.Doc, rej []record.Rejected, st Stats, want []record.Doc, truncated bool) {
	t.Helper()
	if st.Damaged == nil {
		require.Empty(t, rej, "%s: rejections without damage", name)
		require.Equal(t, len(want), len(docs), "%s: an undamaged read lost records", name)
		for i := range want {
			require.Equal(t, want[i].Text, docs[i].Text, "%s: an undamaged read changed record %d", name, i+1)
		}
		return
	}
	d := st.Damaged
	last := rej[len(rej)-1]
	require.Equal(t, last.Line, d.Line, name)
	require.Equal(t, last.Reason, d.Reason, "%s: the damage is the last rejection", name)
	require.True(t, strings.HasPrefix(d.Reason, ReadErrorPrefix), "%s: %s", name, d.Reason)
	// Every line before the damage is a document or an ordinary rejection (a flipped bit
	// can garble lines before gzip's checksum, at the end of the stream, notices).
	lines := map[int64]bool{}
	for _, doc := range docs {
		lines[doc.Line] = true
	}
	for _, r := range rej[:len(rej)-1] {
		require.False(t, strings.HasPrefix(r.Reason, ReadErrorPrefix), "%s: one damage per file", name)
		lines[r.Line] = true
	}
	if d.Line > 0 {
		require.Len(t, lines, int(d.Line-1), "%s: lines 1..%d each read once", name, d.Line-1)
		for l := int64(1); l < d.Line; l++ {
			require.True(t, lines[l], "%s: line %d", name, l)
		}
		require.Contains(t, d.Reason, fmt.Sprintf("last good line %d", d.Line-1), name)
		require.Contains(t, d.Reason, " at byte ", name)
	} else {
		require.Empty(t, docs, name)
		require.Len(t, rej, 1, name)
	}
	for i, doc := range docs {
		if truncated {
			require.Equal(t, int64(i+1), doc.Line, name)
			require.Equal(t, want[i].Text, doc.Text, "%s: record %d before the cut changed", name, i+1)
		}
	}
}

// TestCompressedReadersAtEveryOffset truncates a small .gz and .zst file at every byte
// and flips every bit of it: a damaged stream is always reported as damage, never read
// as a shorter or different corpus.
func TestCompressedReadersAtEveryOffset(t *testing.T) {
	dir := t.TempDir()
	corpus := smallCorpus()
	for _, codec := range []string{"gz", "zst"} {
		full := compress(t, codec, corpus)
		want, rej, _ := readFile(t, write(t, dir, "full.jsonl."+codec, full), Config{})
		require.Empty(t, rej)
		require.Len(t, want, 12)
		path := filepath.Join(dir, "x.jsonl."+codec)
		for n := 0; n < len(full); n++ {
			require.NoError(t, os.WriteFile(path, full[:n], 0o644))
			docs, rej, st := readFile(t, path, Config{})
			name := fmt.Sprintf("%s cut to %d of %d bytes", codec, n, len(full))
			require.NotNil(t, st.Damaged, "%s: a cut stream must be damage", name)
			checkDamageRule(t, name, docs, rej, st, want, true)
		}
		flipped := make([]byte, len(full))
		for i := range full {
			for bit := 0; bit < 8; bit++ {
				copy(flipped, full)
				flipped[i] ^= 1 << bit
				require.NoError(t, os.WriteFile(path, flipped, 0o644))
				docs, rej, st := readFile(t, path, Config{})
				checkDamageRule(t, fmt.Sprintf("%s with bit %d of byte %d flipped", codec, bit, i), docs, rej, st, want, false)
			}
		}
	}
}

// FuzzCompressedReader feeds arbitrary bytes as a .gz and a .zst file: the damage rule
// holds (the reader never panics, and an undamaged read is exactly the original corpus
// when the input is its compressed form).
func FuzzCompressedReader(f *testing.F) {
	corpus := smallCorpus()
	f.Add(compress(f, "gz", corpus), true)
	f.Add(compress(f, "zst", corpus), false)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, isGzip bool) {
		ext := map[bool]string{true: "gz", false: "zst"}[isGzip]
		path := filepath.Join(dir, "f.jsonl."+ext)
		require.NoError(t, os.WriteFile(path, data, 0o644))
		docs, rej, st := readFile(t, path, Config{})
		if st.Damaged != nil {
			require.NotEmpty(t, rej)
			require.Equal(t, st.Damaged.Reason, rej[len(rej)-1].Reason)
			require.Equal(t, int64(len(docs)+len(rej)), max(st.Damaged.Line, 1))
		}
	})
}

// TestDamagedParquet: a Parquet file cut short (its footer gone) is a damaged file, not
// an empty one.
func TestDamagedParquet(t *testing.T) {
	dir := t.TempDir()
	f := writeParquet(t, dir, "train.parquet", []hfRow{{URL: "u1", Text: str("first"), ID: num(1)}, {URL: "u2", Text: str("second"), ID: num(2)}}, 1)
	full, err := os.ReadFile(f)
	require.NoError(t, err)
	for _, n := range []int{0, 4, len(full) / 2, len(full) - 1} {
		cut := write(t, dir, fmt.Sprintf("cut%d.parquet", n), full[:n])
		docs, rej, st := readFile(t, cut, Config{})
		require.NotNil(t, st.Damaged, "cut to %d bytes", n)
		assert.Empty(t, docs)
		require.Len(t, rej, 1)
		assert.True(t, strings.HasPrefix(rej[0].Reason, OpenErrorPrefix), rej[0].Reason)
		assert.Contains(t, st.Damaged.Error(), "input "+cut+" is damaged")
		assert.Contains(t, st.Damaged.Error(), "--on-damaged-file skip")
	}
}
