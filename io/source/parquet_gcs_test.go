package source

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/objstoretest"
	"github.com/neardup/neardup/io/parquetfile/parquettest"
	"github.com/neardup/neardup/record"
)

// gcsServer serves the given objects of bucket "b" from fake-gcs-server on loopback,
// reached through STORAGE_EMULATOR_HOST as the gs:// filesystem reaches GCS.
func gcsServer(t *testing.T, objects map[string][]byte) {
	t.Helper()
	var initial []fakestorage.Object
	for name, b := range objects {
		initial = append(initial, fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "b", Name: name}, Content: b})
	}
	_, env, _ := objstoretest.GCS(t, "b", initial...)
	objstoretest.Setenv(t, env)
}

// A gs:// Parquet file is split by row groups too, each range fetching its own row groups
// by ranged reads, and reads exactly as the whole file read through a local copy;
// verification's re-read fetches only the row groups it needs.
func TestParquetSplitReadOnGCS(t *testing.T) {
	dir := t.TempDir()
	healthy, err := os.ReadFile(manyGroups(t, dir, "a.parquet"))
	require.NoError(t, err)
	damagedFile := manyGroups(t, dir, "d.parquet")
	parquettest.CorruptRowGroup(t, damagedFile, 8) // rows 25-27
	damaged, err := os.ReadFile(damagedFile)
	require.NoError(t, err)
	gcsServer(t, map[string][]byte{"a.parquet": healthy, "d.parquet": damaged})

	for _, file := range []string{"gs://b/a.parquet", "gs://b/d.parquet"} {
		wantDocs, wantRej, wantSt := readFile(t, file, Config{})
		require.Greater(t, len(wantDocs), 20, "%s: %v", file, wantRej)
		assert.Equal(t, file == "gs://b/d.parquet", wantSt.Damaged != nil)
		for _, chunk := range []int64{1, 2000} {
			docs, rej, rs := readSplit(t, file, chunk, Config{})
			require.Greater(t, len(rs), 1, "%s chunk %d", file, chunk)
			assert.Equal(t, wantDocs, docs, "%s chunk %d", file, chunk)
			assert.Equal(t, wantRej, rej, "%s chunk %d", file, chunk)
		}
	}

	lines := []int64{2, 24, 28, 61}
	var got []int64
	ReadLines(context.Background(), "gs://b/d.parquet", Config{}, lines, func(d record.Doc) { got = append(got, d.Line) })
	assert.Equal(t, lines, got, "the damaged rows 25-27 are not among them, so their row group is not read")
}

// A gs:// JSONL file is read in byte ranges that start where they start (ranged reads),
// exactly as a whole read.
func TestSplitReadOnGCS(t *testing.T) {
	var b []byte
	for i := range 300 {
		b = append(b, []byte(`{"id": "d`+strconv.Itoa(i)+`", "text": "document `+strconv.Itoa(i)+`"}`+"\n")...)
	}
	gcsServer(t, map[string][]byte{"a.jsonl": b})
	const file = "gs://b/a.jsonl"
	wantDocs, wantRej, _ := readFile(t, file, Config{})
	require.Len(t, wantDocs, 300)
	for _, chunk := range []int64{100, 1000, 4096} {
		docs, rej, rs := readSplit(t, file, chunk, Config{})
		require.Greater(t, len(rs), 1)
		assert.Equal(t, wantDocs, docs, "chunk %d", chunk)
		assert.Equal(t, wantRej, rej, "chunk %d", chunk)
	}
}
