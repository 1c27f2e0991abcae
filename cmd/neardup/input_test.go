//go:build linux

package main

import (
	"bytes"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func indexCmd(args []string, out, errOut *bytes.Buffer) error { return runIndex(args, out, errOut) }

// TestIndexRefusesAFIFOInput: a format 2 index's inputs get dedup's check; a FIFO is
// refused with exit 2 instead of blocking the build.
func TestIndexRefusesAFIFOInput(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "in.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	_, err := run(t, indexCmd, "--input", fifo, "--output", filepath.Join(dir, "idx"))
	require.Error(t, err)
	assert.Equal(t, 2, exitCode(err))
	assert.Contains(t, err.Error(), fifo+": is a pipe (FIFO), not a regular file")
}
