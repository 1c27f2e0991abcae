package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/report"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/repotest"
	"github.com/neardup/neardup/io/parquetfile/parquettest"
)

func TestAnnotateJSONLKeepsRecordsAndAddsClusterFields(t *testing.T) {
	input := "{\"id\":\"D1\",\"text\":\"red blue green\"}  \r\n" +
		"{\"id\":\"D2\",\"text\":\"red blue green yellow\",\"n\":[1,{\"}\":2}]}\n" +
		"\n" +
		"{\"text\":\"black white\",\"id\":\"D3\"}\n" +
		"{ \"id\":\"D4\",\"text\":\"RED BLUE GREEN\" }" // no final newline
	in := filepath.Join(t.TempDir(), "seed.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(input), 0o644))
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.Mode = []string{in}, t.TempDir(), ModeAnnotate
	cfg.Shingle.N = 2
	st, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)

	entries, err := os.ReadDir(cfg.Output)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"annotated.jsonl", "rejected.jsonl", clustersFile, report.SimilaritiesFile, statsFile}, names)

	got, err := os.ReadFile(filepath.Join(cfg.Output, "annotated.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, "{\"id\":\"D1\",\"text\":\"red blue green\","+
		"\"__cluster__\":\"D1\",\"__cluster_size__\":2,\"__duplicate__\":false,\"__similarity__\":null}  \r\n"+
		"{\"id\":\"D2\",\"text\":\"red blue green yellow\",\"n\":[1,{\"}\":2}],"+
		"\"__cluster__\":\"D2\",\"__cluster_size__\":1,\"__duplicate__\":false,\"__similarity__\":null}\n"+
		"{\"text\":\"black white\",\"id\":\"D3\","+
		"\"__cluster__\":\"D3\",\"__cluster_size__\":1,\"__duplicate__\":false,\"__similarity__\":null}\n"+
		"{ \"id\":\"D4\",\"text\":\"RED BLUE GREEN\" ,"+
		"\"__cluster__\":\"D1\",\"__cluster_size__\":2,\"__duplicate__\":true,\"__similarity__\":1.0}\n", string(got))
	rej, err := os.ReadFile(filepath.Join(cfg.Output, "rejected.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, `{"file":"`+in+`","line":3,"reason":"empty line","record":""}`+"\n", string(rej))
	assert.Equal(t, int64(3), st.Counts["kept"])
	assert.Equal(t, int64(1), st.Counts["removed"])
	assert.Equal(t, int64(3), st.Counts["output_kept"])
	assert.Equal(t, int64(1), st.Counts["output_removed"])
	assert.Equal(t, int64(1), st.Counts["output_rejected"])
}

func TestAnnotatePrefixAndClash(t *testing.T) {
	in := writeLines(t, filepath.Join(t.TempDir(), "p.jsonl"),
		`{"id":"a","text":"one two three four five six","_dd_cluster__":"mine"}`,
		`{"id":"b","text":"one two three four five six"}`)
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.Mode, cfg.AnnotatePrefix = []string{in}, t.TempDir(), ModeAnnotate, "nd_"
	_, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(cfg.Output, "annotated.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, `{"id":"a","text":"one two three four five six","_dd_cluster__":"mine","nd_cluster__":"a","nd_cluster_size__":2,"nd_duplicate__":false,"nd_similarity__":null}`+"\n"+
		`{"id":"b","text":"one two three four five six","nd_cluster__":"a","nd_cluster_size__":2,"nd_duplicate__":true,"nd_similarity__":1.0}`+"\n", string(got))

	cfg.Output, cfg.AnnotatePrefix = t.TempDir(), "_dd_"
	_, err = Run(context.Background(), cfg, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `line 1: the record already has a field "_dd_cluster__"`)
	assert.Contains(t, err.Error(), in)

	cfg.AnnotatePrefix = `"`
	assert.ErrorContains(t, cfg.Validate(), "--annotate-prefix")
	cfg.Mode = "split"
	assert.ErrorContains(t, cfg.Validate(), "--mode")
}

// Annotate mode and keep-by-field together, on text input: each line becomes an object.
func TestAnnotateTextInput(t *testing.T) {
	in := writeLines(t, filepath.Join(t.TempDir(), "t.txt"), "alpha beta gamma delta epsilon", "x y", "alpha beta gamma delta epsilon")
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.Mode = []string{in}, t.TempDir(), ModeAnnotate
	_, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(cfg.Output, "annotated.jsonl"))
	require.NoError(t, err)
	id := func(n string) string { return in + ":" + n }
	assert.Equal(t, `{"id":"`+id("1")+`","text":"alpha beta gamma delta epsilon","__cluster__":"`+id("1")+`","__cluster_size__":2,"__duplicate__":false,"__similarity__":null}`+"\n"+
		`{"id":"`+id("2")+`","text":"x y","__cluster__":"`+id("2")+`","__cluster_size__":1,"__duplicate__":false,"__similarity__":null}`+"\n"+
		`{"id":"`+id("3")+`","text":"alpha beta gamma delta epsilon","__cluster__":"`+id("1")+`","__cluster_size__":2,"__duplicate__":true,"__similarity__":1.0}`+"\n", string(got))
}

// The --keep field example of docs/method.md under --mode annotate (docs/running.md).
func TestAnnotateWithKeepFieldDocsExample(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Inputs = []string{filepath.Join(repotest.Root(t), "testdata", "keep-field.jsonl")}
	cfg.Output, cfg.Mode, cfg.Keep = t.TempDir(), ModeAnnotate, "field:stars:max"
	_, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(cfg.Output, "annotated.jsonl"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	require.Len(t, lines, 4)
	// repo-a's best verified neighbour is its exact copy repo-c, not the keeper.
	assert.Contains(t, lines[0], `"__cluster__":"repo-b","__cluster_size__":3,"__duplicate__":true,"__similarity__":1.0}`)
	assert.Contains(t, lines[1], `"__cluster__":"repo-b","__cluster_size__":3,"__duplicate__":false,"__similarity__":null}`)
	assert.Contains(t, lines[2], `"__cluster__":"repo-b","__cluster_size__":3,"__duplicate__":true,"__similarity__":`)
	assert.Contains(t, lines[3], `"__cluster__":"repo-d","__cluster_size__":1,"__duplicate__":false,"__similarity__":null}`)
}

// annotatedSeedRow is seedRow with the added columns, in the order they are written.
type annotatedSeedRow struct {
	seedRow
	Cluster    string   `parquet:"__cluster__"`
	Size       int64    `parquet:"__cluster_size__"`
	Duplicate  bool     `parquet:"__duplicate__"`
	Similarity *float64 `parquet:"__similarity__,optional"`
}

func TestAnnotateParquetAddsColumns(t *testing.T) {
	seed, dir := seedRows(), t.TempDir()
	inputs := []string{ // two files, two row groups in the first
		parquettest.Write(t, filepath.Join(dir, "a.parquet"), seed[:3], 2),
		parquettest.Write(t, filepath.Join(dir, "b.parquet"), seed[3:], 2),
	}
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.Mode, cfg.Keep = inputs, t.TempDir(), ModeAnnotate, "field:quality:min"
	cfg.Shingle.N, cfg.Threshold = 2, 0.8
	st, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(1), st.Counts["output_removed"])

	path := filepath.Join(cfg.Output, "annotated.parquet")
	rows, err := parquet.ReadFile[annotatedSeedRow](path)
	require.NoError(t, err)
	require.Len(t, rows, 4)
	one := 1.0
	for i, want := range []annotatedSeedRow{
		{seed[0], "D4", 2, true, &one},
		{seed[1], "D2", 1, false, nil},
		{seed[2], "D3", 1, false, nil},
		{seed[3], "D4", 2, false, nil},
	} {
		assert.Equal(t, want, rows[i], "row %d", i+1)
	}

	// The input's columns come first, unchanged and in their order, then the added ones.
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := parquet.OpenFile(f, fi.Size())
	require.NoError(t, err)
	var cols []string
	for _, c := range pf.Schema().Fields() {
		cols = append(cols, c.Name())
	}
	assert.Equal(t, []string{"id", "text", "tokens", "quality", "langs", "meta", "comment",
		"__cluster__", "__cluster_size__", "__duplicate__", "__similarity__"}, cols)
	in := parquet.SchemaOf(seedRow{})
	for _, c := range in.Fields() {
		got, ok := pf.Schema().Lookup(c.Name())
		if c.Leaf() {
			require.True(t, ok, c.Name())
			assert.True(t, parquet.EqualNodes(c, got.Node), c.Name())
		}
	}
}
