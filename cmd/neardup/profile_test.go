package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// NEARDUP_CPUPROFILE and NEARDUP_TRACE together: stopProfile ends both, and each file is
// complete (a gzipped profile; a trace with its header).
func TestProfileAndTraceEndTogether(t *testing.T) {
	t.Cleanup(func() { stopProfile = func() {} })
	dir := t.TempDir()
	prof, tr := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "run.trace")
	require.NoError(t, startCPUProfile(prof))
	require.NoError(t, startTrace(tr))
	var out, errOut bytes.Buffer
	require.NoError(t, dedupCLI([]string{"--quiet", "--input", seedFile, "--output", filepath.Join(dir, "out")}, &out, &errOut), errOut.String())
	stopProfile()

	p, err := os.ReadFile(prof)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(p, []byte{0x1f, 0x8b}), "the CPU profile is gzipped protobuf")
	trace, err := os.ReadFile(tr)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(trace, []byte("go 1.")), "the trace starts with its header")
	assert.Greater(t, len(trace), 1000)

	assert.Error(t, startTrace(filepath.Join(dir, "missing", "run.trace")), "a trace file that cannot be created is an error")
}
