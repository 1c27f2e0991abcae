package sink

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// Ids and texts with invalid UTF-8 are read with each bad byte as U+FFFD; the JSON lines
// neardup composes from such records (removed.jsonl, annotated records) are valid UTF-8
// JSON, readable by Python's json as well as Go's.
func TestInvalidUTF8RecordsGiveValidJSON(t *testing.T) {
	ctx := context.Background()
	in := t.TempDir()
	file := writeInput(t, in, "bad.jsonl",
		"{\"id\": \"A1\", \"text\": \"same words here\"}\n"+
			"{\"id\": \"A\xff2\", \"text\": \"same words \xc3(here\"}\n"+
			"{\"id\": \"A\xed\xa0\x803\", \"text\": \"\xf0\x9f\x98 same words\"}\n")
	idOf := func(raw string) string { // the id as the reader decodes it
		var v struct{ ID string }
		require.NoError(t, json.Unmarshal([]byte(`{"ID":"`+raw+`"}`), &v))
		return v.ID
	}

	tmp := filepath.Join(t.TempDir(), ".tmp")
	p, err := writePart(ctx, tmp, "jsonl", "", "", file, planOf(t, kept(1),
		removedAt(2, idOf("A\xff2"), "A1", 0.9), removedAt(3, idOf("A\xed\xa0\x803"), "A1", 0.8)), 0)
	require.NoError(t, err)
	require.NoError(t, concat(ctx, tmp, "jsonl", false, false, []part{p}, ""))
	checkJSONLines(t, filepath.Join(tmp, "removed.jsonl"), 2)

	ann := filepath.Join(t.TempDir(), ".tmp")
	annotated := func(line int64, id string, dup bool) entry {
		return entry{Line: line, Kind: kindAnnotated, ID: id, Cluster: "A1", Similarity: 0.9, Size: 3, Duplicate: dup}
	}
	p, err = writePart(ctx, ann, "jsonl", "dup_", "", file, planOf(t, annotated(1, "A1", false),
		annotated(2, idOf("A\xff2"), true), annotated(3, idOf("A\xed\xa0\x803"), true)), 0)
	require.NoError(t, err)
	require.NoError(t, concat(ctx, ann, "jsonl", true, false, []part{p}, ""))
	names, err := filepath.Glob(filepath.Join(ann, "*.jsonl"))
	require.NoError(t, err)
	lines := 0
	for _, n := range names {
		lines += checkJSONLines(t, n, -1)
	}
	require.Equal(t, 3, lines, "annotated records in %v", names)
}

// checkJSONLines asserts every line of path is valid UTF-8 and JSON, in Go and, where
// python3 is installed, in Python's json; it returns the number of lines.
func checkJSONLines(t *testing.T, path string, want int) int {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		n++
		require.True(t, utf8.Valid(sc.Bytes()), "%s line %d: %q", path, n, sc.Bytes())
		require.True(t, json.Valid(sc.Bytes()), "%s line %d: %q", path, n, sc.Bytes())
	}
	if want >= 0 {
		require.Equal(t, want, n, path)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Logf("python3 not found: %s checked with Go only", path)
		return n
	}
	out, err := exec.Command(py, "-c", `import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    json.loads(line)`, path).CombinedOutput()
	require.NoError(t, err, "python3 json on %s: %s", path, out)
	return n
}
