package sink

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o777))
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o666))
	}
}

func readFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			out[e.Name()+"/"] = ""
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out[e.Name()] = string(b)
	}
	return out
}

// Commit replaces older outputs, leaves other files alone and removes the temporary
// directory, older outputs included.
func TestCommitReplacesOlderOutputs(t *testing.T) {
	out := t.TempDir()
	tmp := NewTempDir(out)
	writeFiles(t, out, map[string]string{KeptJSONL: "old kept", Removed: "old removed", "notes.txt": "mine"})
	writeFiles(t, tmp, map[string]string{KeptJSONL: "new kept", Removed: "new removed", Rejected: "new rejected"})
	writeFiles(t, filepath.Join(tmp, "parts"), map[string]string{"a.kept": "part"})

	require.NoError(t, Commit(context.Background(), tmp, out, OutputNames("jsonl")))
	assert.Equal(t, map[string]string{KeptJSONL: "new kept", Removed: "new removed", Rejected: "new rejected", "notes.txt": "mine"},
		readFiles(t, out))
}

// A commit that fails leaves the older output of the file it failed on where it was.
func TestCommitFailureKeepsTheOlderOutput(t *testing.T) {
	out := t.TempDir()
	tmp := NewTempDir(out)
	writeFiles(t, out, map[string]string{KeptJSONL: "old kept", Removed: "old removed"})
	writeFiles(t, tmp, map[string]string{KeptJSONL: "new kept"}) // removed.jsonl is missing

	err := Commit(context.Background(), tmp, out, OutputNames("jsonl"))
	require.ErrorContains(t, err, "commit "+Removed)
	got := readFiles(t, out)
	assert.Equal(t, "new kept", got[KeptJSONL], "committed before the failure")
	assert.Equal(t, "old removed", got[Removed])
}
