package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	require.NoError(t, Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "done\n"); return err }))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "done\n", string(b))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())

	boom := errors.New("boom")
	err = Write(path, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	assert.ErrorIs(t, err, boom)
	b, _ = os.ReadFile(path)
	assert.Equal(t, "done\n", string(b), "a failed write leaves the old file")
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "and no temporary file")

	err = Write(filepath.Join(dir, "missing", "x"), func(io.Writer) error { return nil })
	assert.ErrorContains(t, err, "missing")
}
