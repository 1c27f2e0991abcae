package sink

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/prismtest"
	"github.com/neardup/neardup/internal/tally/tallytest"
	"github.com/neardup/neardup/io/commit"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/record"
)

func TestMain(m *testing.M) { prismtest.Main(m) }

func init() {
	register.DoFn1x1[record.Doc, record.Decisions](&decideFn{})
}

// decideFn stands in for the dedup pipeline: the ids in Removed are removed into the
// given cluster with similarity 0.75, every other Doc is kept; each Decision is a batch
// of its own. A kept Doc that removed ones name as their cluster is shown by the report.
type decideFn struct {
	Removed map[string]string // id → cluster
}

func (f *decideFn) ProcessElement(d record.Doc) record.Decisions {
	dec := record.Decision{File: d.File, Line: d.Line, ID: d.ID, Cluster: d.ID, ClusterSize: 1}
	if c, ok := f.Removed[d.ID]; ok {
		dec.Removed, dec.Cluster, dec.Similarity = true, c, 0.75
	}
	for _, c := range f.Removed {
		if c == dec.Cluster {
			dec.ClusterSize++
			dec.Shown = true
		}
	}
	return record.Decisions{Items: []record.Decision{dec}}
}

func gzipped(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.String()
}

type result struct {
	kept, removed, rejected string
	shown                   string // ReportTexts, read before the commit removes it
	counters                map[string]int64
}

// runDedup reads files, decides with removed, writes and commits into outDir.
func runDedup(t *testing.T, fileList []string, format string, removed map[string]string, outDir string) result {
	t.Helper()
	tmp := NewTempDir(outDir)
	p, s := beam.NewPipelineWithRoot()
	read := source.ReadStages(s, fileList, source.Config{Format: format})
	docs, rej, readCounts, ranges := read.Docs, read.Rejected, beam.Flatten(s, read.SplitCounts, read.Counts), read.Ranges
	decisions := beam.ParDo(s, &decideFn{Removed: removed}, docs)
	outFormat, err := source.OutputFormat(fileList, format)
	require.NoError(t, err)
	counts := tallytest.Run(t, p, s, readCounts, Write(s, decisions, rej, ranges, WriteConfig{TempDir: tmp, Format: outFormat, Files: fileList}))

	for _, n := range OutputNames(outFormat) {
		_, err := os.Stat(filepath.Join(outDir, n))
		require.True(t, os.IsNotExist(err), "%s appears only at commit", n)
	}
	shown, _ := os.ReadFile(filepath.Join(tmp, ReportTexts))
	require.NoError(t, commit.Commit(context.Background(), tmp, outDir, OutputNames(outFormat), nil))
	_, err = os.Stat(tmp)
	assert.True(t, os.IsNotExist(err), "the temp dir is removed at commit")

	r := result{
		kept:     readOut(t, outDir, KeptName(outFormat)),
		removed:  readOut(t, outDir, Removed),
		rejected: readOut(t, outDir, Rejected),
		shown:    string(shown),
		counters: counts,
	}
	return r
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n")
}

func TestWritePipelineJSONL(t *testing.T) {
	in := t.TempDir()
	a := writeInput(t, in, "a.jsonl", ""+
		"{\"id\": \"D1\", \"text\": \"red blue green\"}\n"+ // 1 kept
		"{\"id\": \"D2\", \"text\": \"red blue green yellow\"}\n"+ // 2 kept
		"\n"+ // 3 rejected: empty
		"{\"id\": \"D4\", \"text\": \"RED BLUE GREEN\", \"meta\": {\"x\": [1, 2]}}\n"+ // 4 removed
		"not json\n"+ // 5 rejected
		"[\"array\"]\r\n"+ // 6 rejected
		"{\"id\": 7, \"text\": \"number id, CRLF\"}\r\n"+ // 7 kept
		"{\"id\": \"D8\", \"text\": \"bad \xff byte\"}\n"+ // 8 removed
		"{\"id\": \"D9\", \"text\": 9}\n"+ // 9 rejected
		"{\"text\": \"no id, nul \\u0000, no final newline\"}") // 10 kept
	b := writeInput(t, in, "b.jsonl.gz", gzipped(t, "{\"id\": \"B1\", \"text\": \"x\"}\n{\"id\": \"B2\", \"text\": \"x\"}\n"))

	var big strings.Builder
	for i := 0; i < 4000; i++ {
		big.WriteString(`{"text": "filler line that compresses well"}` + "\n")
	}
	full := gzipped(t, big.String())
	c := writeInput(t, in, "c.jsonl.gz", full[:len(full)/2])
	d := filepath.Join(in, "d.jsonl") // never created: cannot be opened

	fileList := []string{a, b, c, d}
	removed := map[string]string{"D4": "D1", "D8": "D1", "B2": "B1"}
	out := t.TempDir()
	r := runDedup(t, fileList, "auto", removed, out)

	// kept: the input's own record bytes, in file then line order.
	keptLines := lines(r.kept)
	require.Greater(t, len(keptLines), 5)
	cKept := len(keptLines) - 5
	wantKept := "{\"id\": \"D1\", \"text\": \"red blue green\"}\n" +
		"{\"id\": \"D2\", \"text\": \"red blue green yellow\"}\n" +
		"{\"id\": 7, \"text\": \"number id, CRLF\"}\r\n" +
		"{\"text\": \"no id, nul \\u0000, no final newline\"}\n" +
		"{\"id\": \"B1\", \"text\": \"x\"}\n" +
		strings.Repeat(`{"text": "filler line that compresses well"}`+"\n", cKept)
	assert.True(t, wantKept == r.kept, "kept output is byte-identical to the kept input records")
	assert.Equal(t, "{\"id\": \"D1\", \"text\": \"red blue green\"}\n{\"id\": \"B1\", \"text\": \"x\"}\n", r.shown,
		"the kept records the report may show are copied as they are kept")

	assert.Equal(t, ""+
		`{"id":"D4","cluster":"D1","similarity":0.75,"file":"`+a+`","line":4,"record":{"id": "D4", "text": "RED BLUE GREEN", "meta": {"x": [1, 2]}}}`+"\n"+
		`{"id":"D8","cluster":"D1","similarity":0.75,"file":"`+a+`","line":8,"record":{"id": "D8", "text": "bad `+"\uFFFD"+` byte"}}`+"\n"+
		`{"id":"B2","cluster":"B1","similarity":0.75,"file":"`+b+`","line":2,"record":{"id": "B2", "text": "x"}}`+"\n",
		r.removed, "removed records embed the original record raw")

	type rejectedRow struct {
		File      string
		Line      int64
		Reason    string
		Record    *string
		Truncated bool
	}
	var rows []rejectedRow
	for _, l := range lines(r.rejected) {
		var row rejectedRow
		require.NoError(t, json.Unmarshal([]byte(l), &row), l)
		rows = append(rows, row)
	}
	str := func(s string) *string { return &s }
	require.Len(t, rows, 6)
	assert.Equal(t, []rejectedRow{
		{File: a, Line: 3, Reason: "empty line", Record: str("")},
		{File: a, Line: 5, Reason: "invalid JSON: invalid character 'o' in literal null at offset 1", Record: str("not json")},
		{File: a, Line: 6, Reason: "record is not a JSON object (array)", Record: str(`["array"]`)},
		{File: a, Line: 9, Reason: `field "text": not a string (number)`, Record: str(`{"id": "D9", "text": 9}`)},
	}, rows[:4])
	assert.Equal(t, c, rows[4].File)
	assert.Equal(t, int64(cKept+1), rows[4].Line, "the truncated file is rejected where it broke")
	assert.True(t, strings.HasPrefix(rows[4].Reason, source.ReadErrorPrefix), rows[4].Reason)
	assert.Equal(t, rejectedRow{File: d, Line: 0, Reason: rows[5].Reason}, rows[5])
	assert.True(t, strings.HasPrefix(rows[5].Reason, source.OpenErrorPrefix), rows[5].Reason)

	// Every input line is in exactly one output.
	inputLines := 10 + 2 + (cKept + 1) + 1
	assert.Equal(t, inputLines, len(keptLines)+len(lines(r.removed))+len(rows))
	assert.Equal(t, map[string]int64{
		"documents_read": int64(6 + 2 + cKept), "records_rejected": 6, "invalid_utf8_replaced": 1, "damaged_files": 2,
		"input_ranges": 4, "unsplittable_files": 2,
		"output_kept": int64(len(keptLines)), "output_removed": 3, "output_rejected": 6,
		"kept": int64(len(keptLines)), "removed": 3,
	}, r.counters)

	// Run to run, the outputs are byte-identical.
	r2 := runDedup(t, fileList, "auto", removed, t.TempDir())
	assert.True(t, r.kept == r2.kept)
	assert.Equal(t, r.removed, r2.removed)
	assert.Equal(t, r.rejected, r2.rejected)
}

func TestWritePipelineText(t *testing.T) {
	in := t.TempDir()
	f1 := writeInput(t, in, "one.txt", "red blue green\n\nRED BLUE GREEN\nlast\xff")
	f2 := writeInput(t, in, "two.txt", "second file\n")
	out := t.TempDir()
	r := runDedup(t, []string{f1, f2}, "auto", map[string]string{f1 + ":3": f1 + ":1"}, out)
	assert.Equal(t, "red blue green\nlast\xff\nsecond file\n", r.kept)
	assert.Equal(t, `{"id":"`+f1+`:3","cluster":"`+f1+`:1","similarity":0.75,"file":"`+f1+`","line":3,"record":"RED BLUE GREEN"}`+"\n", r.removed)
	assert.Equal(t, `{"file":"`+f1+`","line":2,"reason":"empty line","record":""}`+"\n", r.rejected)
	assert.Empty(t, r.shown, "text lines name no id: the report finds them in the inputs")
	_, err := os.Stat(filepath.Join(out, KeptText))
	require.NoError(t, err)
}

func TestWritePipelineEmptyInput(t *testing.T) {
	f := writeInput(t, t.TempDir(), "empty.jsonl", "")
	out := t.TempDir()
	r := runDedup(t, []string{f}, "auto", nil, out)
	assert.Equal(t, result{counters: r.counters}, r, "all outputs exist and are empty")
}

func TestWritePipelineFailsOnLostDecision(t *testing.T) {
	f := writeInput(t, t.TempDir(), "a.jsonl", "{\"id\": \"A\", \"text\": \"a\"}\n{\"id\": \"B\", \"text\": \"b\"}\n")
	out := t.TempDir()
	p, s := beam.NewPipelineWithRoot()
	// Hand-made decisions that forget line 2.
	decisions := beam.CreateList(s, []record.Decisions{{Items: []record.Decision{{File: f, Line: 1, ID: "A", Cluster: "A"}}}})
	rejected := beam.CreateList(s, []record.Rejected{})
	Write(s, decisions, rejected, beam.CreateList(s, []source.Range{}), WriteConfig{TempDir: NewTempDir(out), Format: "jsonl", Files: []string{f}})
	err := ptest.Run(p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 2: no decision and no rejection")
	_, err = os.Stat(filepath.Join(out, KeptJSONL))
	assert.True(t, os.IsNotExist(err), "a failed run leaves no finished-looking output")
}

func TestWriteRejectsUnresolvedFormat(t *testing.T) {
	_, s := beam.NewPipelineWithRoot()
	d := beam.CreateList(s, []record.Decisions{})
	r := beam.CreateList(s, []record.Rejected{})
	rs := beam.CreateList(s, []source.Range{})
	assert.Panics(t, func() { Write(s, d, r, rs, WriteConfig{TempDir: "x", Format: "auto"}) })
	assert.Panics(t, func() { Write(s, d, r, rs, WriteConfig{Format: "jsonl"}) })
}

// TestSingleLayoutLeavesRangesAlone: the single layout builds no step on the read
// ranges and so takes no side input (the embedded runner pays for either on every
// run); the sharded layout keys its pieces by them.
func TestSingleLayoutLeavesRangesAlone(t *testing.T) {
	for _, tc := range []struct {
		shards int
		want   bool
	}{{0, false}, {2, true}} {
		p, s := beam.NewPipelineWithRoot()
		ranges := beam.CreateList(s, []source.Range{{File: "a.jsonl", End: 10}})
		Write(s, beam.CreateList(s, []record.Decisions{}), beam.CreateList(s, []record.Rejected{}), ranges,
			WriteConfig{TempDir: "x", Format: "jsonl", Files: []string{"a.jsonl"}, Shards: tc.shards})
		edges, _, err := p.Build()
		require.NoError(t, err)
		var uses []string
		for _, e := range edges {
			for _, in := range e.Input {
				if in.From.Type().Type() == reflect.TypeOf(source.Range{}) {
					uses = append(uses, e.Name())
				}
			}
		}
		assert.Equal(t, tc.want, len(uses) > 0, "shards %d: steps taking the ranges: %v", tc.shards, uses)
	}
}
