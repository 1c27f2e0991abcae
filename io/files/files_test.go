package files

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

func readAll(t *testing.T, path string) ([]byte, error) {
	t.Helper()
	r, err := Open(context.Background(), path)
	require.NoError(t, err)
	defer r.Close()
	return io.ReadAll(r)
}

// payload is large and varied enough that a compressor emits several blocks.
func payload() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 300_000; i++ {
		b.WriteString(strings.Repeat(string(rune('a'+i%26)), i%97))
		b.WriteString("\x00é\n")
	}
	return b.Bytes()
}

func TestCreateOpenRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	want := payload()
	for _, name := range []string{"plain.jsonl", "a.jsonl.gz", "b.txt.zst", "sub/dir/c.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			w, err := Create(ctx, path)
			require.NoError(t, err)
			_, err = w.Write(want)
			require.NoError(t, err)
			require.NoError(t, w.Close())

			onDisk, err := os.ReadFile(path)
			require.NoError(t, err)
			// Independent decoders prove the bytes on disk really are compressed.
			switch Compression(name) {
			case "gzip":
				zr, err := gzip.NewReader(bytes.NewReader(onDisk))
				require.NoError(t, err)
				dec, err := io.ReadAll(zr)
				require.NoError(t, err)
				assert.Equal(t, want, dec)
				assert.Less(t, len(onDisk), len(want))
			case "zstd":
				zr, err := zstd.NewReader(bytes.NewReader(onDisk))
				require.NoError(t, err)
				dec, err := io.ReadAll(zr)
				zr.Close()
				require.NoError(t, err)
				assert.Equal(t, want, dec)
				assert.Less(t, len(onDisk), len(want))
			default:
				assert.Equal(t, want, onDisk)
			}

			got, err := readAll(t, path)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

func TestOpenConcatenatedGzipMembers(t *testing.T) {
	// `cat a.gz b.gz > c.gz` is a valid gzip file holding both; gzip tools read it whole.
	var buf bytes.Buffer
	for _, part := range []string{"first\n", "second\n"} {
		zw := gzip.NewWriter(&buf)
		_, err := zw.Write([]byte(part))
		require.NoError(t, err)
		require.NoError(t, zw.Close())
	}
	path := filepath.Join(t.TempDir(), "multi.gz")
	writeFile(t, path, buf.Bytes())
	got, err := readAll(t, path)
	require.NoError(t, err)
	assert.Equal(t, "first\nsecond\n", string(got))
}

func compressed(t *testing.T, kind string, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	switch kind {
	case "gzip":
		zw := gzip.NewWriter(&buf)
		_, err := zw.Write(data)
		require.NoError(t, err)
		require.NoError(t, zw.Close())
	case "zstd":
		zw, err := zstd.NewWriter(&buf)
		require.NoError(t, err)
		_, err = zw.Write(data)
		require.NoError(t, err)
		require.NoError(t, zw.Close())
	}
	return buf.Bytes()
}

func TestTruncatedCompressedFileIsAnErrorNamingTheFile(t *testing.T) {
	dir := t.TempDir()
	data := payload()
	for _, tc := range []struct{ name, kind string }{{"cut.jsonl.gz", "gzip"}, {"cut.jsonl.zst", "zstd"}} {
		t.Run(tc.name, func(t *testing.T) {
			full := compressed(t, tc.kind, data)
			path := filepath.Join(dir, tc.name)
			writeFile(t, path, full[:len(full)/2])
			got, err := readAll(t, path)
			require.Error(t, err, "a truncated stream must not read as a short file")
			assert.Contains(t, err.Error(), path)
			// The decompressor consumed the whole cut file before it found the cut, and
			// not a byte more: the offset is where the damage is.
			var re *ReadError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, int64(len(full)/2), re.Offset)
			assert.Less(t, len(got), len(data))
			assert.Equal(t, data[:len(got)], got, "what was read before the break is a prefix")
		})
	}
}

// A stream corrupt in its middle breaks there: the offset is the damage's, not the end
// of what the reader's 1 MiB buffer had read ahead (the whole file, here). The .gz is two
// members, the second with a broken header, found within its first bytes; the .zst has
// bytes flipped a third in, found at the end of their block at the latest.
func TestCorruptCompressedFileBreaksWhereItIsCorrupt(t *testing.T) {
	for _, kind := range []string{"gzip", "zstd"} {
		t.Run(kind, func(t *testing.T) {
			full := compressed(t, kind, payload())
			ext, at, limit := "zst", len(full)/3, len(full)
			if kind == "gzip" {
				ext, at = "gz", len(full)
				limit = at + 64
				second := compressed(t, kind, payload())
				second[0] = 'X' // not the gzip magic
				full = append(full, second...)
			} else {
				for i := at; i < at+64; i++ {
					full[i] ^= 0x5a
				}
			}
			path := filepath.Join(t.TempDir(), "corrupt.jsonl."+ext)
			writeFile(t, path, full)
			_, err := readAll(t, path)
			var re *ReadError
			require.ErrorAs(t, err, &re)
			assert.GreaterOrEqual(t, re.Offset, int64(at))
			assert.Less(t, re.Offset, int64(limit), "%v", err)
		})
	}
}

func TestGzipMissingTrailerIsAnError(t *testing.T) {
	// Cutting only the 8-byte CRC/size trailer leaves every data byte readable: the
	// reader must still report the damage rather than a clean EOF.
	full := compressed(t, "gzip", []byte("all the data\n"))
	path := filepath.Join(t.TempDir(), "notrailer.gz")
	writeFile(t, path, full[:len(full)-8])
	_, err := readAll(t, path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "notrailer.gz")
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	_, err := Open(ctx, filepath.Join(dir, "missing.jsonl"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing.jsonl")

	notGzip := filepath.Join(dir, "fake.gz")
	writeFile(t, notGzip, []byte("this is not gzip\n"))
	_, err = Open(ctx, notGzip)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "fake.gz")

	_, err = Open(ctx, "nosuchscheme://bucket/x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nosuchscheme://bucket/x")
}

func TestExpand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, n := range []string{"b.jsonl", "a.jsonl", "c.txt", "sub/d.jsonl"} {
		writeFile(t, filepath.Join(dir, n), []byte("x\n"))
	}
	j := func(n string) string { return filepath.Join(dir, n) }

	got, err := Expand(ctx, []string{j("*.jsonl"), j("a.jsonl"), j("c.txt")})
	require.NoError(t, err)
	assert.Equal(t, []string{j("a.jsonl"), j("b.jsonl"), j("c.txt")}, got, "sorted, duplicates removed")

	got, err = Expand(ctx, []string{j("*")})
	require.NoError(t, err)
	assert.Equal(t, []string{j("a.jsonl"), j("b.jsonl"), j("c.txt")}, got, "directories are not files")

	_, err = Expand(ctx, []string{j("*.jsonl"), j("nothing-*.parquet")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), j("nothing-*.parquet"))
	assert.Contains(t, err.Error(), "matches no files")

	_, err = Expand(ctx, []string{j("missing.jsonl")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing.jsonl")

	_, err = Expand(ctx, []string{j("[")})
	require.Error(t, err, "a malformed glob is an error")
	assert.Contains(t, err.Error(), j("["))

	_, err = Expand(ctx, nil)
	require.Error(t, err)
	_, err = Expand(ctx, []string{" "})
	require.Error(t, err)
}

func TestJoin(t *testing.T) {
	assert.Equal(t, filepath.Join("out", "kept.jsonl"), Join("out", "kept.jsonl"))
	assert.Equal(t, "gs://bucket/out/kept.jsonl", Join("gs://bucket/out", "kept.jsonl"))
	assert.Equal(t, "gs://bucket/out/kept.jsonl", Join("gs://bucket/out/", "kept.jsonl"))
	assert.True(t, IsLocal("/tmp/x"))
	assert.False(t, IsLocal("gs://b/x"))
}

func TestRenameRemoveLocal(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	from, to := filepath.Join(dir, "tmp", "a"), filepath.Join(dir, "a")
	writeFile(t, from, []byte("hello"))
	require.NoError(t, Rename(ctx, from, to))
	_, err := os.Stat(from)
	assert.True(t, os.IsNotExist(err))
	b, err := os.ReadFile(to)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(b))

	require.Error(t, Rename(ctx, to, "gs://bucket/a"), "cross-filesystem rename is refused")

	require.NoError(t, Remove(ctx, to))
	_, err = os.Stat(to)
	assert.True(t, os.IsNotExist(err))
	err = Remove(ctx, to)
	require.Error(t, err)
	assert.Contains(t, err.Error(), to)

	writeFile(t, filepath.Join(dir, "tmp", "x", "y"), []byte("1"))
	require.NoError(t, RemoveAll(ctx, filepath.Join(dir, "tmp")))
	_, err = os.Stat(filepath.Join(dir, "tmp"))
	assert.True(t, os.IsNotExist(err))
	require.NoError(t, RemoveAll(ctx, filepath.Join(dir, "tmp")), "already gone is fine")

	// Many files, at several depths, are deleted several at a time; nothing beside dir is.
	for i := range 20 {
		writeFile(t, filepath.Join(dir, "tmp", fmt.Sprint(i%3), fmt.Sprintf("f%d", i)), []byte("data"))
	}
	writeFile(t, filepath.Join(dir, "tmp-neighbour"), []byte("stay"))
	require.NoError(t, os.Symlink(filepath.Join(dir, "tmp-neighbour"), filepath.Join(dir, "tmp", "link")))
	require.NoError(t, RemoveAll(ctx, filepath.Join(dir, "tmp")))
	_, err = os.Stat(filepath.Join(dir, "tmp"))
	assert.True(t, os.IsNotExist(err))
	b, err = os.ReadFile(filepath.Join(dir, "tmp-neighbour"))
	require.NoError(t, err, "a symlink's target outside dir is not deleted")
	assert.Equal(t, "stay", string(b))
}

// memfs:// takes the URL (non-local) code paths: Join with '/', listing for RemoveAll.
func TestURLPathsThroughMemfs(t *testing.T) {
	ctx := context.Background()
	dir := "memfs://files-test/tmp"
	w, err := Create(ctx, Join(dir, "part.gz"))
	require.NoError(t, err)
	_, err = io.WriteString(w, "compressed in memory\n")
	require.NoError(t, err)
	require.NoError(t, w.Close())

	require.NoError(t, Rename(ctx, Join(dir, "part.gz"), "memfs://files-test/final.gz"))
	got, err := readAll(t, "memfs://files-test/final.gz")
	require.NoError(t, err)
	assert.Equal(t, "compressed in memory\n", string(got))

	listed, err := Expand(ctx, []string{"memfs://files-test/*.gz"})
	require.NoError(t, err)
	assert.Equal(t, []string{"memfs://files-test/final.gz"}, listed)

	for _, n := range []string{"x", "y"} {
		w, err := Create(ctx, Join(dir, n))
		require.NoError(t, err)
		require.NoError(t, w.Close())
	}
	require.NoError(t, RemoveAll(ctx, dir))
	_, err = Expand(ctx, []string{Join(dir, "*")})
	require.Error(t, err, "everything under the dir is gone")
	_, err = Expand(ctx, []string{"memfs://files-test/final.gz"})
	require.NoError(t, err, "RemoveAll stays inside its dir")
}

// A failed write names the file once ("write /dev/full: no space left on device"), and
// Close reports it too.
func TestWriteErrorNamesTheFileOnce(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	w, err := Create(context.Background(), "/dev/full")
	require.NoError(t, err)
	var werr error
	for i := 0; i < 10 && werr == nil; i++ {
		_, werr = w.Write(make([]byte, 1<<20))
	}
	cerr := w.Close()
	require.Error(t, cerr)
	for _, err := range []error{werr, cerr} {
		if err == nil {
			continue
		}
		assert.Contains(t, err.Error(), "/dev/full: no space left on device")
		assert.Equal(t, 1, strings.Count(err.Error(), "write /dev/full"), err.Error())
	}
}

// A compressed file whose first bytes announce another format is refused with an error
// that names the format it looks like, the file and its extension's codec.
func TestMisnamedCompressedFileNamesItsFormat(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	data := []byte("{\"id\": \"a\", \"text\": \"x\"}\n")
	for _, tc := range []struct {
		name  string
		bytes []byte
		looks string
	}{
		{"gzip.jsonl.zst", compressed(t, "gzip", data), "gzip"},
		{"zstd.jsonl.gz", compressed(t, "zstd", data), "zstd"},
		{"xz.jsonl.gz", append([]byte{0xfd, '7', 'z', 'X', 'Z', 0}, data...), "xz"},
		{"bzip2.jsonl.zst", append([]byte("BZh91AY&SY"), data...), "bzip2"},
		{"zip.jsonl.gz", append([]byte("PK\x03\x04\x14\x00"), data...), "zip"},
		{"table.parquet.gz", append([]byte("PAR1\x15\x04"), data...), "Parquet"},
	} {
		path := filepath.Join(dir, tc.name)
		writeFile(t, path, tc.bytes)
		_, err := Open(ctx, path)
		require.Error(t, err, tc.name)
		codec := Compression(path)
		assert.Contains(t, err.Error(), path)
		assert.Contains(t, err.Error(), "starts like "+tc.looks+" data, not "+codec, tc.name)
	}
	// Correctly named streams still open.
	for _, kind := range []string{"gzip", "zstd"} {
		path := filepath.Join(dir, "ok.jsonl."+map[string]string{"gzip": "gz", "zstd": "zst"}[kind])
		writeFile(t, path, compressed(t, kind, data))
		got, err := readAll(t, path)
		require.NoError(t, err)
		assert.Equal(t, data, got)
	}
}

// TestExpansionMeasuresTheSample: the ratio of text to stored bytes of a compressed
// file, measured whole and on a sample that ends inside the stream; 1 for a plain file,
// 0 for a file that does not decode.
func TestExpansionMeasuresTheSample(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var want bytes.Buffer
	rng := rand.New(rand.NewPCG(1, 2))
	for want.Len() < 4<<20 {
		fmt.Fprintf(&want, "{\"id\": %d, \"text\": \"w%d w%d w%d\"}\n", want.Len(), rng.IntN(5000), rng.IntN(5000), rng.IntN(5000))
	}
	for _, name := range []string{"a.jsonl.gz", "b.jsonl.zst"} {
		path := filepath.Join(dir, name)
		w, err := Create(ctx, path)
		require.NoError(t, err)
		_, err = w.Write(want.Bytes())
		require.NoError(t, err)
		require.NoError(t, w.Close())
		st, err := os.Stat(path)
		require.NoError(t, err)
		exact := float64(want.Len()) / float64(st.Size())
		assert.InDelta(t, exact, Expansion(ctx, path, st.Size()), exact*0.001, name)
		assert.InDelta(t, exact, Expansion(ctx, path, st.Size()/3), exact*0.1, "%s: a third of the file", name)
	}
	plain := filepath.Join(dir, "c.jsonl")
	require.NoError(t, os.WriteFile(plain, want.Bytes(), 0o644))
	assert.Equal(t, 1.0, Expansion(ctx, plain, 1<<20))
	bad := filepath.Join(dir, "d.jsonl.zst")
	require.NoError(t, os.WriteFile(bad, want.Bytes(), 0o644))
	assert.Equal(t, 0.0, Expansion(ctx, bad, 1<<20))
}
