package source

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

func gz(t *testing.T, data string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(data))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

func readFile(t *testing.T, file string, cfg Config) ([]record.Doc, []record.Rejected, Stats) {
	t.Helper()
	var docs []record.Doc
	var rej []record.Rejected
	st := ReadFile(context.Background(), file, cfg,
		func(d record.Doc) { docs = append(docs, d) },
		func(r record.Rejected) { rej = append(rej, r) })
	return docs, rej, st
}

// mixedJSONL covers every kind of bad record next to good ones. Line numbers are physical.
const mixedJSONL = "\xef\xbb\xbf{\"id\": \"a\", \"text\": \"first\"}\n" + // 1: BOM on line 1 is a file marker
	"{\"id\": 7, \"text\": \"number id\"}\r\n" + // 2: CRLF
	"{\"text\": \"no id\"}\n" + // 3
	"\n" + // 4: empty
	"   \t\n" + // 5: whitespace only
	"{\"id\": \"b\", \"text\": \"cut\n" + // 6: malformed
	"[1, 2]\n" + // 7: not an object
	"{\"id\": \"c\"}\n" + // 8: no text
	"{\"id\": \"d\", \"text\": 12}\n" + // 9: text not a string
	"{\"id\": \"e\", \"text\": \"bad \xff utf8\"}\n" + // 10
	"{\"id\": \"f\", \"text\": \"nul \\u0000 kept\"}\n" + // 11
	"{\"id\": \"\", \"text\": \"empty id\"}\n" + // 12
	"{\"id\": \"g\", \"text\": \"last, no newline\"}" // 13

func TestReadFileJSONL(t *testing.T) {
	dir := t.TempDir()
	f := write(t, dir, "mixed.jsonl", []byte(mixedJSONL))
	docs, rej, st := readFile(t, f, Config{})
	assert.Equal(t, []record.Doc{
		{ID: "a", File: f, Line: 1, Text: "first"},
		{ID: "7", File: f, Line: 2, Text: "number id"},
		{ID: f + ":3", File: f, Line: 3, Text: "no id"},
		{ID: "e", File: f, Line: 10, Text: "bad \uFFFD utf8"},
		{ID: "f", File: f, Line: 11, Text: "nul \x00 kept"},
		{ID: f + ":12", File: f, Line: 12, Text: "empty id"},
		{ID: "g", File: f, Line: 13, Text: "last, no newline"},
	}, docs)
	assert.Equal(t, []record.Rejected{
		{File: f, Line: 4, Reason: "empty line"},
		{File: f, Line: 5, Reason: "empty line"},
		{File: f, Line: 6, Reason: "invalid JSON: unexpected end of input"},
		{File: f, Line: 7, Reason: "record is not a JSON object (array)"},
		{File: f, Line: 8, Reason: `field "text": missing`},
		{File: f, Line: 9, Reason: `field "text": not a string (number)`},
	}, rej)
	assert.Equal(t, Stats{Docs: 7, Rejected: 6, InvalidUTF8: 1}, st)
	assert.Equal(t, int64(13), st.Docs+st.Rejected, "every physical line is accounted for")
}

func TestReadFileCustomFields(t *testing.T) {
	f := write(t, t.TempDir(), "c.ndjson", []byte(`{"doc": 5, "body": "b", "text": 1}`+"\n"))
	docs, rej, _ := readFile(t, f, Config{IDField: "doc", TextField: "body"})
	assert.Empty(t, rej)
	assert.Equal(t, []record.Doc{{ID: "5", File: f, Line: 1, Text: "b"}}, docs)
}

func TestReadFileText(t *testing.T) {
	dir := t.TempDir()
	f := write(t, dir, "plain.txt", []byte("red blue green\r\n\n  \nbad \xff byte\nnul\x00inside\n{\"text\": \"parsed\"}\nlast"))
	docs, rej, st := readFile(t, f, Config{})
	assert.Equal(t, []record.Doc{
		{ID: f + ":1", File: f, Line: 1, Text: "red blue green"},
		{ID: f + ":4", File: f, Line: 4, Text: "bad \uFFFD byte"},
		{ID: f + ":5", File: f, Line: 5, Text: "nul\x00inside"},
		{ID: f + ":6", File: f, Line: 6, Text: `{"text": "parsed"}`},
		{ID: f + ":7", File: f, Line: 7, Text: "last"},
	}, docs)
	assert.Equal(t, []record.Rejected{{File: f, Line: 2, Reason: "empty line"}, {File: f, Line: 3, Reason: "empty line"}}, rej)
	assert.Equal(t, int64(1), st.InvalidUTF8)

	// An explicit format overrides the extension.
	docs, rej, _ = readFile(t, f, Config{Format: FormatJSONL})
	require.Len(t, docs, 1)
	assert.Equal(t, int64(6), docs[0].Line)
	assert.Len(t, rej, 6)
}

func TestReadFileCompressedAndBroken(t *testing.T) {
	dir := t.TempDir()
	good := write(t, dir, "good.jsonl.gz", gz(t, "{\"id\": \"x\", \"text\": \"zipped\"}\n"))
	docs, rej, _ := readFile(t, good, Config{})
	assert.Empty(t, rej)
	assert.Equal(t, []record.Doc{{ID: "x", File: good, Line: 1, Text: "zipped"}}, docs)

	var sb strings.Builder
	for i := 0; i < 20000; i++ {
		sb.WriteString(`{"text": "line number ` + strings.Repeat("z", i%50) + `"}` + "\n")
	}
	full := gz(t, sb.String())
	cut := write(t, dir, "cut.jsonl.gz", full[:len(full)/2])
	docs, rej, st := readFile(t, cut, Config{})
	require.Len(t, rej, 1, "a truncated stream is one rejection, not a pipeline failure")
	assert.Equal(t, cut, rej[0].File)
	assert.Equal(t, int64(len(docs)+1), rej[0].Line, "rejected at the line where it broke")
	assert.True(t, strings.HasPrefix(rej[0].Reason, ReadErrorPrefix), rej[0].Reason)
	assert.Contains(t, rej[0].Reason, cut, "the reason names the file")
	assert.Greater(t, len(docs), 100)
	assert.Less(t, len(docs), 20000)
	assert.Equal(t, int64(len(docs)), st.Docs)

	missing := filepath.Join(dir, "missing.jsonl")
	docs, rej, _ = readFile(t, missing, Config{})
	assert.Empty(t, docs)
	require.Len(t, rej, 1)
	assert.Equal(t, int64(0), rej[0].Line)
	assert.True(t, strings.HasPrefix(rej[0].Reason, OpenErrorPrefix), rej[0].Reason)
	assert.Contains(t, rej[0].Reason, missing)

	notGz := write(t, dir, "fake.txt.gz", []byte("plain text pretending\n"))
	_, rej, _ = readFile(t, notGz, Config{})
	require.Len(t, rej, 1)
	assert.Equal(t, int64(0), rej[0].Line)
}

func TestReadFileHugeLine(t *testing.T) {
	text := strings.Repeat("abcd ", 10<<20) // 50 MiB
	f := write(t, t.TempDir(), "huge.jsonl", []byte("{\"text\": \"small\"}\n{\"id\": \"big\", \"text\": \""+text+"\"}\n{\"text\": \"after\"}\n"))
	docs, rej, _ := readFile(t, f, Config{})
	assert.Empty(t, rej)
	require.Len(t, docs, 3)
	assert.Equal(t, "big", docs[1].ID)
	assert.True(t, docs[1].Text == text)
	assert.Equal(t, "after", docs[2].Text)
	assert.Equal(t, int64(3), docs[2].Line)
}

func TestFileFormat(t *testing.T) {
	for in, want := range map[string]string{
		"a.jsonl": "jsonl", "a.json": "jsonl", "a.ndjson": "jsonl", "a.JSONL": "jsonl",
		"gs://b/x.jsonl.gz": "jsonl", "x.ndjson.zst": "jsonl", "a.txt": "text", "dir.v1/a.txt.gz": "text",
		"a.parquet": "parquet", "gs://b/train-00000-of-00002.PARQUET": "parquet",
	} {
		got, err := FileFormat(in, FormatAuto)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"a.csv", "a.gz", "noext", "a.pq"} {
		_, err := FileFormat(in, FormatAuto)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), in)
	}
	got, err := FileFormat("a.csv", FormatText)
	require.NoError(t, err)
	assert.Equal(t, "text", got)
	_, err = FileFormat("a.jsonl", "xml")
	require.Error(t, err)
}

func TestFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := write(t, dir, "b.jsonl", []byte("{}\n"))
	a := write(t, dir, "a.jsonl.gz", gz(t, "{}\n"))
	write(t, dir, "c.txt", []byte("x\n"))
	write(t, dir, "d.csv", []byte("x\n"))

	got, err := Files(ctx, Config{Patterns: []string{filepath.Join(dir, "*.jsonl*"), b}})
	require.NoError(t, err)
	assert.Equal(t, []string{a, b}, got)

	_, err = Files(ctx, Config{Patterns: []string{filepath.Join(dir, "*.jsonl"), filepath.Join(dir, "*.txt")}})
	require.Error(t, err, "mixed formats")
	assert.Contains(t, err.Error(), "mix")

	_, err = Files(ctx, Config{Patterns: []string{filepath.Join(dir, "*.csv")}})
	require.Error(t, err, "unknown extension")
	assert.Contains(t, err.Error(), "d.csv")

	got, err = Files(ctx, Config{Patterns: []string{filepath.Join(dir, "*.csv")}, Format: FormatText})
	require.NoError(t, err, "an explicit format accepts any extension")
	assert.Len(t, got, 1)

	_, err = Files(ctx, Config{Patterns: []string{filepath.Join(dir, "nope*.jsonl")}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nope*.jsonl")

	format, err := OutputFormat([]string{"x.txt", "y.txt.gz"}, FormatAuto)
	require.NoError(t, err)
	assert.Equal(t, "text", format)
}
