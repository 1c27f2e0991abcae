package sink

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeInput(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	return p
}

func kept(line int64) entry { return entry{Line: line, Kind: kindKept} }
func removedAt(line int64, id, cluster string, sim float64) entry {
	return entry{Line: line, Kind: kindRemoved, ID: id, Cluster: cluster, Similarity: sim}
}
func rejectedAt(line int64, reason string) entry {
	return entry{Line: line, Kind: kindRejected, Reason: reason}
}

func planOf(t *testing.T, es ...entry) *plan {
	t.Helper()
	var p plan
	for _, e := range es {
		require.NoError(t, p.add(e))
	}
	return &p
}

func readOut(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return string(b)
}

func TestWritePartAndConcat(t *testing.T) {
	ctx := context.Background()
	in := t.TempDir()
	tmp := filepath.Join(t.TempDir(), ".tmp")
	// b sorts after a: its records come second in every output whatever the call order.
	b := writeInput(t, in, "b.jsonl", "{\"id\": \"B1\", \"text\": \"x\"}\r\n{\"id\": \"B2\", \"text\": \"x\"}")
	a := writeInput(t, in, "a.jsonl", "\xef\xbb\xbf{\"id\": \"A1\", \"text\": \"x\"}\n\n {\"id\": \"A3\", \"text\": \"x\"} \n")

	pb, err := writePart(ctx, tmp, "jsonl", "", "", b, planOf(t, kept(2), kept(1)), 0)
	require.NoError(t, err)
	assert.Equal(t, part{File: b, Base: partBase(tmp, b), Kept: true, NKept: 2}, pb)
	pa, err := writePart(ctx, tmp, "jsonl", "", "", a, planOf(t, removedAt(3, "A3", "A1", 0.8), kept(1), rejectedAt(2, "empty line")), 0)
	require.NoError(t, err)
	assert.Equal(t, int64(1), pa.NKept)

	require.NoError(t, concat(ctx, tmp, "jsonl", false, false, []part{pb, pa}, ""))
	assert.Equal(t, "\xef\xbb\xbf{\"id\": \"A1\", \"text\": \"x\"}\n{\"id\": \"B1\", \"text\": \"x\"}\r\n{\"id\": \"B2\", \"text\": \"x\"}\n",
		readOut(t, tmp, "kept.jsonl"), "BOM kept, CRLF kept, missing final newline added, file order")
	assert.Equal(t, `{"id":"A3","cluster":"A1","similarity":0.8,"file":"`+a+`","line":3,"record":{"id": "A3", "text": "x"}}`+"\n",
		readOut(t, tmp, "removed.jsonl"))
	assert.Equal(t, `{"file":"`+a+`","line":2,"reason":"empty line","record":""}`+"\n", readOut(t, tmp, "rejected.jsonl"))
	_, err = os.Stat(filepath.Join(tmp, "parts"))
	assert.True(t, os.IsNotExist(err), "parts are deleted")
}

func TestConcatWithNoPartsCreatesEmptyOutputs(t *testing.T) {
	tmp := t.TempDir()
	require.NoError(t, concat(context.Background(), tmp, "text", false, false, nil, ""))
	for _, n := range OutputNames("text") {
		assert.Equal(t, "", readOut(t, tmp, n))
	}
}

func TestWritePartText(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	f := writeInput(t, t.TempDir(), "t.txt", "\xef\xbb\xbfkeep me\nremove \"me\"\n")
	_, err := writePart(ctx, tmp, "text", "", "", f, planOf(t, kept(1), removedAt(2, f+":2", f+":1", 0.5)), 0)
	require.NoError(t, err)
	require.NoError(t, concatFromDir(t, tmp, "text", f))
	assert.Equal(t, "\xef\xbb\xbfkeep me\n", readOut(t, tmp, "kept.txt"), "the input's bytes, its byte order mark too")
	assert.Equal(t, `{"id":"`+f+`:2","cluster":"`+f+`:1","similarity":0.5,"file":"`+f+`","line":2,"record":"remove \"me\""}`+"\n", readOut(t, tmp, "removed.jsonl"))
}

func concatFromDir(t *testing.T, tmp, format string, fileList ...string) error {
	t.Helper()
	var parts []part
	for _, f := range fileList {
		base := partBase(tmp, f)
		pt := part{File: f, Base: base}
		for ext, ok := range map[string]*bool{".kept": &pt.Kept, ".removed": &pt.Removed, ".rejected": &pt.Rejected} {
			_, err := os.Stat(base + ext)
			*ok = err == nil
		}
		parts = append(parts, pt)
	}
	return concat(context.Background(), tmp, format, false, false, parts, "")
}

func TestWritePartRefusesMismatchedOutcomes(t *testing.T) {
	ctx := context.Background()
	f := writeInput(t, t.TempDir(), "a.jsonl", "{\"text\": \"1\"}\n{\"text\": \"2\"}\n{\"text\": \"3\"}\n")
	for _, tc := range []struct {
		name string
		p    *plan
		want string
	}{
		{"lost record", planOf(t, kept(1), kept(3)), "line 2: no decision and no rejection"},
		{"kept and removed", planOf(t, kept(1), kept(2), removedAt(2, "x", "y", 1), kept(3)), "line 2: more than one outcome"},
		{"removed twice", planOf(t, kept(1), removedAt(2, "x", "y", 1), removedAt(2, "x", "y", 1), kept(3)), "line 2: more than one outcome"},
		{"beyond the end", planOf(t, kept(1), kept(2), kept(3), kept(4)), "after the last line (3)"},
		{"rejected beyond the end", planOf(t, kept(1), kept(2), kept(3), rejectedAt(9, "x")), "after the last line (3)"},
		{"line 0 with other outcomes", planOf(t, rejectedAt(0, "open error: x"), kept(1)), "rejected whole"},
		{"outcomes after a read error", planOf(t, kept(1), rejectedAt(2, source.ReadErrorPrefix+"x"), kept(3)), "where the reader stopped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := writePart(ctx, t.TempDir(), "jsonl", "", "", f, tc.p, 0)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), f, "the error names the file")
		})
	}

	var p plan
	require.NoError(t, p.add(kept(5)))
	require.ErrorContains(t, p.add(kept(5)), "kept twice")
	require.Error(t, p.add(kept(0)))
	require.Error(t, p.add(removedAt(-1, "", "", 0)))
}

func TestWritePartBrokenAndMissingFiles(t *testing.T) {
	ctx := context.Background()
	in := t.TempDir()
	var full bytes.Buffer
	zw := gzip.NewWriter(&full)
	for i := 0; i < 5000; i++ {
		_, err := zw.Write([]byte("{\"text\": \"some line of text that compresses\"}\n"))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	cut := writeInput(t, in, "cut.jsonl.gz", full.String()[:full.Len()-20])

	// The reader's own view of the file decides the plan, as in the pipeline.
	var p plan
	source.ReadFile(ctx, cut, source.Config{},
		func(d record.Doc) {
			require.NoError(t, p.add(fromDecision(record.Decision{File: d.File, Line: d.Line})))
		},
		func(r record.Rejected) { require.NoError(t, p.add(fromRejected(r))) })
	require.Len(t, p.rejected, 1)
	tmp := t.TempDir()
	pt, err := writePart(ctx, tmp, "jsonl", "", "", cut, &p, 0)
	require.NoError(t, err, "a file that broke for the reader breaks at the same line for the sink")
	assert.Equal(t, p.rejected[0].Line-1, pt.NKept)
	assert.Equal(t, int64(1), pt.NRejected)

	// A rejection from a read error where the re-read succeeds: the sink stops there too.
	ok := writeInput(t, in, "ok.jsonl", "{\"text\": \"1\"}\n{\"text\": \"2\"}\n")
	pt, err = writePart(ctx, t.TempDir(), "jsonl", "", "", ok, planOf(t, kept(1), rejectedAt(2, source.ReadErrorPrefix+"transient")), 0)
	require.NoError(t, err)
	assert.Equal(t, int64(1), pt.NRejected)

	// Re-read failing where the reader did not: a loud error.
	var noRejection plan
	for l := int64(1); l < p.rejected[0].Line; l++ {
		require.NoError(t, noRejection.add(kept(l)))
	}
	_, err = writePart(ctx, t.TempDir(), "jsonl", "", "", cut, &noRejection, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "re-read failed")
	assert.Contains(t, err.Error(), "unexpected EOF")

	missing := filepath.Join(in, "gone.jsonl")
	tmp = t.TempDir()
	pt, err = writePart(ctx, tmp, "jsonl", "", "", missing, planOf(t, rejectedAt(0, "open error: gone")), 0)
	require.NoError(t, err)
	require.NoError(t, concat(ctx, tmp, "jsonl", false, false, []part{pt}, ""))
	assert.Equal(t, `{"file":"`+missing+`","line":0,"reason":"open error: gone"}`+"\n", readOut(t, tmp, "rejected.jsonl"))
}

// TestWritePartLongLines re-reads a file with lines over the record size limit, which the
// source rejected: kept is the input without them, byte for byte, the lines after them
// keep their numbers, and each rejected line shows the start of its record.
func TestWritePartLongLines(t *testing.T) {
	ctx := context.Background()
	tmp := filepath.Join(t.TempDir(), ".tmp")
	long := `{"id": "L", "text": "` + strings.Repeat("x", 5000) + `"}`
	in := writeInput(t, t.TempDir(), "a.jsonl", "{\"id\": \"1\"}\n"+long+"\r\n{\"id\": \"3\"}\r\n{\"id\": \"4\"}\n"+long)
	reason := source.LongRecordReason(int64(len(long)), 100)
	p, err := writePart(ctx, tmp, "jsonl", "", "", in,
		planOf(t, kept(1), rejectedAt(2, reason), kept(3), removedAt(4, "4", "1", 0.9), rejectedAt(5, reason)), 100)
	require.NoError(t, err)
	assert.Equal(t, part{File: in, Base: partBase(tmp, in), Kept: true, Removed: true, Rejected: true, NKept: 2, NRemoved: 1, NRejected: 2}, p)
	require.NoError(t, concat(ctx, tmp, "jsonl", false, false, []part{p}, ""))
	assert.Equal(t, "{\"id\": \"1\"}\n{\"id\": \"3\"}\r\n", readOut(t, tmp, "kept.jsonl"))
	rej := strings.Split(strings.TrimSpace(readOut(t, tmp, "rejected.jsonl")), "\n")
	require.Len(t, rej, 2)
	for i, line := range []int{2, 5} {
		assert.True(t, strings.HasPrefix(rej[i], fmt.Sprintf(`{"file":"%s","line":%d,"reason":"%s","record":"{\"id\": \"L\"`, in, line, reason)), rej[i])
	}

	// A decision for a line over the limit is a lost record somewhere: refused.
	_, err = writePart(ctx, filepath.Join(t.TempDir(), ".tmp"), "jsonl", "", "", in,
		planOf(t, kept(1), kept(2), kept(3), kept(4), rejectedAt(5, reason)), 100)
	require.ErrorContains(t, err, "line 2")
}
