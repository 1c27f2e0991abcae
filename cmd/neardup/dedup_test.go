package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func dedupCLI(args []string, out, errOut *bytes.Buffer) error { return runDedup(args, out, errOut) }

// Case 5: every bad flag value and stray argument exits 2 naming the flag, before any
// pipeline work; case 7: help exits 0 and shows neardup's own flags, not Beam's.
func TestDedupFlagErrorsExit2NamingTheFlag(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	base := []string{"--input", seedFile, "--output", out}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "xml"}, "--format"},
		{[]string{"--seed", "-1"}, "--seed"},
		{[]string{"--on-damaged-file", "ignore"}, "--on-damaged-file"},
		{[]string{"--lsh", "fast"}, "--lsh"},
		{[]string{"--scheme", "md5"}, "-scheme"},
		{[]string{"extra.jsonl"}, `unexpected argument "extra.jsonl"`},
		{[]string{"--no-such-flag"}, "-no-such-flag"},
	} {
		_, err := run(t, dedupCLI, append(append([]string{}, base...), c.args...)...)
		require.Error(t, err, "%v", c.args)
		assert.Contains(t, err.Error(), c.want, "%v", c.args)
		assert.Equal(t, 2, exitCode(err), "%v: %v", c.args, err)
	}
	_, err := run(t, dedupCLI, "--input", filepath.Dir(seedFile), "--output", out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is a directory: give "+filepath.Dir(seedFile)+"/*.jsonl")
	assert.Equal(t, 2, exitCode(err))
}

func TestHelpExitsZeroWithNeardupsOwnFlags(t *testing.T) {
	out, err := run(t, dedupCLI, "--help")
	assert.Equal(t, 0, exitCode(err), "%v", err)
	assert.True(t, strings.HasPrefix(out, "usage: neardup dedup"), out)
	assert.Contains(t, out, "-on-damaged-file")
	assert.Contains(t, out, "neardup --help-beam")
	assert.NotContains(t, out, "-staging_location", "Beam flags only under --help-beam")

	out, err = run(t, dedupCLI, "--help-beam")
	assert.Equal(t, 0, exitCode(err))
	assert.Contains(t, out, "-runner")

	var top bytes.Buffer
	require.True(t, topLevelHelp([]string{"--help"}, &top))
	assert.True(t, strings.HasPrefix(top.String(), "usage: neardup <command>"), top.String())
	assert.NotContains(t, top.String(), "-staging_location")
}
