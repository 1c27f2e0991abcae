package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// indexOnce runs `neardup index` on a fresh global flag set (runIndex registers its
// flags there, as Beam's are), so that a test may run it more than once, and without
// the job server endpoint an earlier test's embedded runner left in Beam's flag.
func indexOnce(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	defer func(fs *flag.FlagSet, endpoint string) { flag.CommandLine, *jobopts.Endpoint = fs, endpoint }(flag.CommandLine, *jobopts.Endpoint)
	flag.CommandLine, *jobopts.Endpoint = flag.NewFlagSet("neardup", flag.ContinueOnError), ""
	var out, errOut bytes.Buffer
	err = runIndex(args, &out, &errOut)
	return out.String(), errOut.String(), err
}

// A --max-record-bytes that is no size, or out of range, is a usage error naming the
// flag and the value, for dedup and index alike.
func TestMaxRecordBytesErrorNamesFlagAndValue(t *testing.T) {
	dedup := func(args []string, out, errOut *bytes.Buffer) error { return runDedup(args, out, errOut) }
	for _, c := range []struct{ value, want string }{
		{"12XB", `--max-record-bytes "12XB": not a size`},
		{"0", `--max-record-bytes "0": not a size`},
		{"-5MB", `--max-record-bytes "-5MB": not a size`},
		{"0.1", `--max-record-bytes "0.1": not a size`},
		{"9GB", `--max-record-bytes "9GB": 9663676416 bytes is over the largest limit, 1 GiB`},
	} {
		dir := t.TempDir()
		_, derr := run(t, dedup, "--max-record-bytes", c.value, "--input", seedFile, "--output", dir)
		_, _, ierr := indexOnce(t, "--max-record-bytes", c.value, "--input", seedFile, "--output", filepath.Join(dir, "idx"))
		for verb, err := range map[string]error{"dedup": derr, "index": ierr} {
			require.Error(t, err, "%s --max-record-bytes %s", verb, c.value)
			assert.Equal(t, 2, exitCode(err), "%s --max-record-bytes %s", verb, c.value)
			assert.Contains(t, err.Error(), c.want, verb)
			assert.NotContains(t, err.Error(), "memory size", verb)
		}
	}
}

// neardup index --max-record-bytes rejects a longer record with its file, line and size,
// counts it, and indexes the rest; without the flag the default limit holds all three.
func TestIndexMaxRecordBytes(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	long := fmt.Sprintf(`{"id":"long","text":"%s"}`, strings.Repeat("many words here ", 200))
	require.NoError(t, os.WriteFile(in, []byte(`{"id":"a","text":"a short document of a few words"}`+"\n"+
		long+"\n"+`{"id":"b","text":"another short document entirely unlike"}`+"\n"), 0o644))
	out, errOut, err := indexOnce(t, "--quiet", "--max-record-bytes", "1KB", "--input", in, "--output", filepath.Join(dir, "small"))
	require.NoError(t, err, errOut)
	assert.Contains(t, out, "indexed 2 documents (1 records rejected, not indexed)")
	assert.Equal(t, fmt.Sprintf("neardup index: %s:2: record of %d bytes is over the record size limit of 1024 bytes (--max-record-bytes); not indexed\n", in, len(long)), errOut)
	out, errOut, err = indexOnce(t, "--quiet", "--input", in, "--output", filepath.Join(dir, "default"))
	require.NoError(t, err, errOut)
	assert.Contains(t, out, "indexed 3 documents (0 records rejected, not indexed)")
	assert.Empty(t, errOut)
}

// index --info reports the files an interrupted run left, and deletes none of them.
func TestIndexInfoReportsFilesOfInterruptedRun(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	_, errOut, err := indexOnce(t, "--quiet", "--input", seedFile, "--output", idx)
	require.NoError(t, err, errOut)
	orphan := filepath.Join(idx, "gen-000002-0123abcd", "segment-00000.nds")
	require.NoError(t, os.MkdirAll(filepath.Dir(orphan), 0o755))
	require.NoError(t, os.WriteFile(orphan, make([]byte, 777), 0o644))
	out, _, err := indexOnce(t, "--info", idx)
	require.NoError(t, err)
	assert.Contains(t, out, "unreferenced:  1 files, 777 bytes, named by no manifest")
	assert.FileExists(t, orphan)
}
