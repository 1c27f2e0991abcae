package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/normalize"
	"github.com/neardup/neardup/shingle"
)

const seedFile = "../../testdata/seed.jsonl"

func run(t *testing.T, fn func([]string, *bytes.Buffer, *bytes.Buffer) error, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := fn(args, &out, &errOut)
	return out.String(), err
}

func compare(args []string, out, errOut *bytes.Buffer) error { return runCompare(args, out, errOut) }
func params(args []string, out, errOut *bytes.Buffer) error  { return runParams(args, out, errOut) }
func sign(args []string, out, errOut *bytes.Buffer) error    { return runSign(args, out, errOut) }

// The seed article's reference output, byte for byte (DESIGN.md).
func TestCompareReproducesTheSeedExample(t *testing.T) {
	out, err := run(t, compare, "--ngram", "2", "--threshold", "0.8", "--pairs", "D1:D2,D1:D3,D2:D3,D1:D4", seedFile)
	require.NoError(t, err)
	assert.Equal(t, "D1 D2 0.6666666666666666 KEEP\nD1 D3 0.0 KEEP\nD2 D3 0.0 KEEP\nD1 D4 1.0 REMOVE\n", out)

	out, err = run(t, compare, "--ngram", "2", "--threshold", "0.6", "--pairs", "D1:D2,D1:D3,D2:D3,D1:D4", seedFile)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "D1 D2 0.6666666666666666 REMOVE\n"), out)
}

func TestCompareAllPairsWithEstimate(t *testing.T) {
	out, err := run(t, compare, "--ngram", "2", "--estimate", seedFile)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 6, "all pairs of four documents, in input order")
	assert.True(t, strings.HasPrefix(lines[0], "D1 D2 0.6666666666666666 "))
	assert.Equal(t, "D1 D4 1.0 1.0 REMOVE", lines[2], "identical sets have identical signatures")
	for _, l := range lines {
		assert.Len(t, strings.Fields(l), 5, l)
	}
}

func TestCompareErrors(t *testing.T) {
	_, err := run(t, compare, "--pairs", "D1:D9", seedFile)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"D9"`)
	assert.Equal(t, 2, exitCode(err))

	_, err = run(t, compare, "--threshold", "0", seedFile)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--threshold")

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"id":"a","text":"x"}`+"\n"+`{"id":"b"`+"\n"), 0o644))
	_, err = run(t, compare, bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad+":2")
	assert.Equal(t, 1, exitCode(err))
}

func TestParamsJSON(t *testing.T) {
	out, err := run(t, params, "--threshold", "0.8", "--num-perm", "128", "--lsh", "datasketch", "--json")
	require.NoError(t, err)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	for _, k := range []string{"bands", "rows", "false_positive", "false_negative", "detection"} {
		assert.Contains(t, rep, k)
	}
	assert.Equal(t, 9.0, rep["bands"], "datasketch's choice for 0.8/128")
	assert.Equal(t, 13.0, rep["rows"])
	assert.Len(t, rep["detection"], 7)

	_, err = run(t, params, "--threshold", "0.9", "--num-perm", "16", "--lsh", "datasketch")
	require.Error(t, err, "datasketch refuses b < 2")
	assert.Contains(t, err.Error(), "b < 2")
}

// params --measure containment shows each size-class group's banding and S-curve.
func TestParamsContainment(t *testing.T) {
	out, err := run(t, params, "--measure", "containment", "--json")
	require.NoError(t, err)
	var rep struct {
		Keys   int `json:"keys_per_document"`
		Groups []struct {
			Distance  int                `json:"class_distance"`
			Bands     int                `json:"bands"`
			Rows      int                `json:"rows"`
			Detection map[string]float64 `json:"detection"`
		} `json:"groups"`
		Sample struct {
			FromDistance int     `json:"from_class_distance"`
			MaxRatio     float64 `json:"max_size_ratio"`
			Classes      []struct {
				Class     int                `json:"class"`
				Detection map[string]float64 `json:"detection"`
			} `json:"classes"`
		} `json:"sample"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Groups, 4)
	assert.Equal(t, 28, rep.Groups[0].Bands)
	assert.Equal(t, 2, rep.Groups[0].Rows)
	assert.Equal(t, 28+86, rep.Keys, "the one-row groups share their 86 keys")
	for _, g := range rep.Groups {
		assert.GreaterOrEqual(t, g.Detection["0.85"], 0.99, "group %d", g.Distance)
	}
	assert.Equal(t, len(rep.Groups), rep.Sample.FromDistance, "sampling takes over where the groups end")
	assert.GreaterOrEqual(t, rep.Sample.MaxRatio, 100.0)
	require.NotEmpty(t, rep.Sample.Classes)
	for _, k := range rep.Sample.Classes {
		assert.GreaterOrEqual(t, k.Detection["0.85"], 0.99, "class %d", k.Class)
		assert.LessOrEqual(t, k.Detection["0.3"], k.Detection["0.85"], "class %d", k.Class)
	}
	text, err := run(t, params, "--measure", "containment")
	require.NoError(t, err)
	assert.Contains(t, text, "under 8.0 times the smaller is always in a group")
	assert.Contains(t, text, "up to a size ratio of 128.0")

	_, err = run(t, params, "--measure", "cosine")
	assert.Equal(t, 2, exitCode(err))
}

// --num-perm has a maximum, refused as a usage error by every verb that takes it,
// before any work (with --bands/--rows given, nothing else would stop it).
func TestNumPermMaximum(t *testing.T) {
	out, err := run(t, params, "--num-perm", "8192", "--json")
	require.NoError(t, err)
	assert.Contains(t, out, `"bands"`)
	verbs := map[string]func([]string, *bytes.Buffer, *bytes.Buffer) error{"params": params, "sign": sign, "compare": compare,
		"dedup": func(args []string, out, errOut *bytes.Buffer) error { return runDedup(args, out, errOut) }}
	for _, args := range [][]string{
		{"params", "--num-perm", "8193"},
		{"params", "--num-perm", "100000", "--lsh", "datasketch"},
		{"sign", "--num-perm", "8193", seedFile},
		{"compare", "--estimate", "--num-perm", "8193", seedFile},
		{"dedup", "--num-perm", "100000", "--bands", "1000", "--rows", "100", "--input", seedFile, "--output", t.TempDir()},
	} {
		_, err := run(t, verbs[args[0]], args[1:]...)
		require.Error(t, err, "%v", args)
		assert.Contains(t, err.Error(), "8192", "%v", args)
		assert.Equal(t, 2, exitCode(err), "%v", args)
	}
}

// sign's hex must decode as a LeanMinHash equal to signing the document directly.
func TestSignWritesLeanMinHashHex(t *testing.T) {
	out, err := run(t, sign, "--ngram", "2", "--hash", "sha1", "--num-perm", "16", seedFile)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4)
	signer, err := minhash.NewSigner(minhash.Affine32, 1, 16)
	require.NoError(t, err)
	want := signer.Sign(shingle.Hashes(normalize.Text("RED BLUE GREEN", normalize.Options{}), shingle.Options{Kind: shingle.Word, N: 2}, minhash.SHA1.Sum64))
	var l signLine
	require.NoError(t, json.Unmarshal([]byte(lines[3]), &l))
	assert.Equal(t, "D4", l.ID)
	b, err := hex.DecodeString(l.Signature)
	require.NoError(t, err)
	got, err := minhash.UnmarshalLean(b, '<')
	require.NoError(t, err)
	assert.Equal(t, want.Values, got.Values)
	assert.Equal(t, int64(1), got.Seed)
}

// compare shingles whole sets as dedup does: a document of 150,000 distinct words and its
// 90% prefix, both above the default --max-shingles, compare at their exact Jaccard 0.9,
// not at the Jaccard of two capped samples (0.818).
func TestCompareLargeDocumentsExactly(t *testing.T) {
	words := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "w%d ", i)
		}
		return b.String()
	}
	path := filepath.Join(t.TempDir(), "large.jsonl")
	line := func(id, text string) string {
		b, _ := json.Marshal(map[string]string{"id": id, "text": text})
		return string(b) + "\n"
	}
	require.NoError(t, os.WriteFile(path, []byte(line("whole", words(150_000))+line("prefix", words(135_000))), 0o644))
	out, err := run(t, compare, "--ngram", "1", path)
	require.NoError(t, err)
	assert.Contains(t, out, "whole prefix 0.9 REMOVE")
}

// A --memory budget below the minimum is a usage error naming the flag and the minimum.
func TestMemoryBelowMinimumIsRefused(t *testing.T) {
	dedup := func(args []string, out, errOut *bytes.Buffer) error { return runDedup(args, out, errOut) }
	_, err := run(t, dedup, "--memory", "1B", "--input", seedFile, "--output", t.TempDir())
	require.Error(t, err)
	assert.Equal(t, 2, exitCode(err))
	assert.Contains(t, err.Error(), `--memory: memory budget "1B" is below the minimum of 256 MiB`)
}
