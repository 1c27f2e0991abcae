package source

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/objstoretest"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/textfile"
	"github.com/neardup/neardup/record"
)

const testLimit = 120

// longCorpus is JSONL with records under, at and over testLimit, "\r\n" endings, a
// blank line and a last line over the limit without a newline.
func longCorpus() string {
	rng := rand.New(rand.NewPCG(9, 10))
	var b strings.Builder
	for i := range 80 {
		n := 80 + rng.IntN(60) // records of about 100 to 160 bytes
		if i%17 == 3 {
			n = 5000
		}
		rec := fmt.Sprintf(`{"id": "r%d", "text": "%s"}`, i, strings.Repeat("w ", n/2))
		b.WriteString(rec)
		if i%7 == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
		if i == 40 {
			b.WriteString("\n")
		}
	}
	b.WriteString(`{"id": "last", "text": "` + strings.Repeat("z", 300) + `"}`)
	return b.String()
}

// wantLong splits data into lines independently of the readers and returns the lines
// whose records are over limit, which must be rejected, and the ids of the others that
// are documents.
func wantLong(data string, limit int) (long map[int64]int, ids map[int64]string) {
	long, ids = map[int64]int{}, map[int64]string{}
	for i, l := range strings.SplitAfter(data, "\n") {
		if l == "" {
			continue
		}
		rec := strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
		if !strings.HasSuffix(l, "\n") {
			rec = l
		}
		switch {
		case len(rec) > limit:
			long[int64(i+1)] = len(rec)
		case strings.TrimSpace(rec) != "":
			ids[int64(i+1)] = rec[len(`{"id": "`):strings.Index(rec, `", "text"`)]
		}
	}
	return long, ids
}

// checkLong checks one read of longCorpus under testLimit: every line is one Doc or
// one Rejected, the long ones rejected with their size and the limit, the others read
// as without a limit.
func checkLong(t *testing.T, what string, docs []record.Doc, rej []record.Rejected, data string) {
	t.Helper()
	long, ids := wantLong(data, testLimit)
	require.NotEmpty(t, long)
	lines := strings.Count(data, "\n") + 1
	assert.Equal(t, lines, len(docs)+len(rej), "%s: every line once", what)
	got := map[int64]bool{}
	for _, d := range docs {
		assert.False(t, got[d.Line], "%s: line %d twice", what, d.Line)
		got[d.Line] = true
		assert.Equal(t, ids[d.Line], d.ID, "%s: line %d", what, d.Line)
	}
	nlong := 0
	for _, r := range rej {
		assert.False(t, got[r.Line], "%s: line %d twice", what, r.Line)
		got[r.Line] = true
		if n, ok := long[r.Line]; ok {
			nlong++
			assert.Equal(t, LongRecordReason(int64(n), testLimit), r.Reason, "%s: line %d", what, r.Line)
			continue
		}
		assert.Equal(t, ReasonEmptyLine, r.Reason, "%s: line %d", what, r.Line)
	}
	assert.Equal(t, len(long), nlong, "%s: long lines rejected", what)
}

// TestLongRecordsRejected reads a corpus with lines over a low --max-record-bytes
// through every line reader: whole plain, .gz and .zst files, byte ranges of every
// chunk size (a long line crossing range ends, and starting in the range before), the
// re-read of wanted lines, and all of it from s3://.
func TestLongRecordsRejected(t *testing.T) {
	data := longCorpus()
	dir := t.TempDir()
	cfg := Config{MaxRecordBytes: testLimit}
	plain := write(t, dir, "in.jsonl", []byte(data))
	inputs := map[string]string{
		"plain": plain,
		"gz":    write(t, dir, "in.jsonl.gz", compress(t, "gz", data)),
		"zst":   write(t, dir, "in.jsonl.zst", compress(t, "zst", data)),
	}
	bucket := "s3://" + "limits"
	_, env := objstoretest.S3(t, "limits")
	objstoretest.Setenv(t, env)
	for name, f := range map[string]string{"in.jsonl": plain, "in.jsonl.gz": inputs["gz"]} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, files.WriteBytes(context.Background(), bucket+"/"+name, b))
		inputs["s3 "+name] = bucket + "/" + name
	}
	for name, f := range inputs {
		docs, rej, st := readFile(t, f, cfg)
		checkLong(t, name, docs, rej, data)
		assert.Nil(t, st.Damaged, name)
	}
	for f, chunks := range map[string][]int64{plain: {1, 2, 7, 64, 121, 500, 3000}, bucket + "/in.jsonl": {121, 3000}} {
		for _, chunk := range chunks {
			docs, rej, rs := readSplit(t, f, chunk, cfg)
			require.Greater(t, len(rs), 1)
			checkLong(t, fmt.Sprintf("%s in ranges of %d bytes", f, chunk), docs, rej, data)
		}
	}

	// The re-read of wanted lines finds the documents among the long lines.
	_, ids := wantLong(data, testLimit)
	var lines []int64
	for l := range int64(strings.Count(data, "\n") + 2) {
		lines = append(lines, l)
	}
	var got []record.Doc
	ReadLines(context.Background(), plain, cfg, lines, func(d record.Doc) { got = append(got, d) })
	assert.Len(t, got, len(ids))
	for _, d := range got {
		assert.Equal(t, ids[d.Line], d.ID)
	}
}

// TestLongParquetText: a row whose text is over the limit is one rejected row.
func TestLongParquetText(t *testing.T) {
	dir := t.TempDir()
	f := writeParquet(t, dir, "t.parquet", []hfRow{
		{URL: "a", Text: str("short")}, {URL: "b", Text: str(strings.Repeat("x", testLimit+1))},
		{URL: "c", Text: str(strings.Repeat("y", testLimit))},
	}, 2)
	docs, rej, _ := readFile(t, f, Config{MaxRecordBytes: testLimit})
	require.Len(t, docs, 2)
	assert.Equal(t, []int64{1, 3}, []int64{docs[0].Line, docs[1].Line})
	require.Len(t, rej, 1)
	assert.Equal(t, record.Rejected{File: f, Line: 2, Reason: LongRecordReason(testLimit+1, testLimit)}, rej[0])
	docs, rej, _ = readSplit(t, f, 1, Config{MaxRecordBytes: testLimit})
	assert.Len(t, docs, 2)
	assert.Len(t, rej, 1)
}

// TestDefaultLimit: without a limit the default applies.
func TestDefaultLimit(t *testing.T) {
	lr := Lines(strings.NewReader(strings.Repeat("x", DefaultMaxRecordBytes+1)), 0)
	_, _, err := lr.Next()
	var long *textfile.LongLineError
	require.ErrorAs(t, err, &long)
	assert.Equal(t, DefaultMaxRecordBytes, long.Limit)
}
