package files

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/repotest"
)

func TestCheckInputRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "in.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	for path, want := range map[string]string{
		fifo:        fifo + ": is a pipe (FIFO), not a regular file",
		"/dev/null": "/dev/null: is a character device, not a regular file",
		"/proc/self/fd/" + strconv.Itoa(int(r.Fd())): "is a pipe (FIFO), not a regular file",
		filepath.Join(dir, "missing.jsonl"):          "missing.jsonl: no such file or directory",
	} {
		err := CheckInput(path)
		require.Error(t, err, path)
		require.Contains(t, err.Error(), want)
	}
	regular := filepath.Join(dir, "ok.jsonl")
	require.NoError(t, os.WriteFile(regular, []byte("{}\n"), 0o644))
	require.NoError(t, CheckInput(regular))
	require.NoError(t, CheckInput("gs://bucket/in.jsonl"))
}

func TestCheckInputNamesPermissionDenied(t *testing.T) {
	path, ok := repotest.Unprivileged(t, func() string {
		path := filepath.Join(repotest.PublicTempDir(t), "secret.jsonl")
		require.NoError(t, os.WriteFile(path, []byte("{}\n"), 0o644))
		require.NoError(t, os.Chmod(path, 0))
		return path
	})
	if !ok {
		return
	}
	err := CheckInput(path)
	require.Error(t, err)
	require.Equal(t, path+": cannot be read: permission denied", err.Error())
}

// TestExpandInputsChecksEveryFile: a glob that matches a FIFO beside a regular file, and
// /dev/stdin, are refused as CheckInput refuses them (format 2 index inputs, --prefer and
// dedup's inputs all expand through it).
func TestExpandInputsChecksEveryFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte("{}\n"), 0o644))
	fifo := filepath.Join(dir, "b.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	_, err := ExpandInputs(context.Background(), []string{filepath.Join(dir, "*.jsonl")})
	require.ErrorContains(t, err, fifo+": is a pipe (FIFO), not a regular file")
	_, err = ExpandInputs(context.Background(), []string{"/dev/stdin"})
	require.ErrorContains(t, err, "not a regular file")
	require.NoError(t, os.Remove(fifo))
	got, err := ExpandInputs(context.Background(), []string{filepath.Join(dir, "*.jsonl")})
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(dir, "a.jsonl")}, got)
}
