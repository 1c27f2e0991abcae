package pipeline

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/repotest"
	"github.com/neardup/neardup/io/runlock"
)

// cutGzip writes n JSONL documents gzipped and cut in half, as a download that stopped.
func cutGzip(t *testing.T, path string, n int) {
	t.Helper()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	for i := 0; i < n; i++ {
		fmt.Fprintln(zw, jsonDoc(fmt.Sprintf("d%05d", i), fmt.Sprintf("document %d about topic %d with some words", i, i*7)))
	}
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(path, gz.Bytes()[:gz.Len()/2], 0o644))
}

// assertNothingCommitted checks that a failed run left no finished-looking file and at
// most its own temporary directory holding only the runner's log.
func assertNothingCommitted(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.True(t, strings.HasPrefix(e.Name(), tempPrefix), "%s left in %s after a failed run", e.Name(), dir)
		inner, err := os.ReadDir(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		for _, f := range inner {
			assert.Equal(t, logName, f.Name(), "only the log stays in the temporary directory of a failed run")
		}
	}
}

// Case 1: a truncated .gz fails the run by default, naming the file, the last good line
// and the byte offset, and commits nothing.
func TestDamagedGzipFailsTheRun(t *testing.T) {
	in := filepath.Join(t.TempDir(), "cut.jsonl.gz")
	cutGzip(t, in, 2000)
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{in}, t.TempDir()
	_, err := Run(context.Background(), cfg, nil)
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "input "+in+" is damaged")
	assert.Contains(t, msg, "unexpected EOF at byte ")
	assert.Contains(t, msg, "last good line ")
	assert.Contains(t, msg, "--on-damaged-file skip")
	assert.NotContains(t, msg, "DataSource", "the runner's execution plan is not part of the message")
	assertNothingCommitted(t, cfg.Output)
}

// Case 1, skipped: the lines before the damage are deduplicated, the file is one line of
// rejected.jsonl and listed in stats.json with a warning.
func TestDamagedGzipSkipped(t *testing.T) {
	in := filepath.Join(t.TempDir(), "cut.jsonl.gz")
	cutGzip(t, in, 2000)
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.OnDamagedFile = []string{in}, t.TempDir(), DamagedSkip
	out, st := dedup(t, cfg)
	assert.Equal(t, int64(1), st.Counts["damaged_files"])
	assert.Equal(t, int64(1), st.Counts["records_rejected"])
	require.Len(t, st.DamagedFiles, 1)
	d := st.DamagedFiles[0]
	assert.Equal(t, in, d.File)
	assert.Equal(t, st.Counts["documents_read"], d.LastGoodLine)
	assert.Less(t, d.LastGoodLine, int64(2000))
	assert.Equal(t, "unknown", st.RecordsAfterDamage)
	require.NotEmpty(t, st.Warnings)
	assert.Contains(t, st.Warnings[len(st.Warnings)-1], fmt.Sprintf("%s after line %d", in, d.LastGoodLine))
	assert.Contains(t, out["rejected.jsonl"], fmt.Sprintf(`"line":%d,"reason":"damaged file: `, d.LastGoodLine+1))
	assert.Contains(t, out["stats.json"], `"records_after_damage": "unknown"`)
}

// Case 2: a second run into a directory another run holds fails at once, naming it.
func TestSecondRunIntoTheSameOutputFails(t *testing.T) {
	cfg := seedConfig(t)
	holder := runlock.Me(".neardup-tmp-other")
	holder.Host = "elsewhere"
	l, _, err := runlock.Acquire(context.Background(), cfg.Output, holder)
	require.NoError(t, err)
	_, err = Run(context.Background(), cfg, nil)
	require.Error(t, err)
	var held *runlock.HeldError
	require.True(t, errors.As(err, &held), "%v", err)
	assert.Contains(t, err.Error(), fmt.Sprintf("pid %d on host elsewhere", os.Getpid()))
	entries, _ := os.ReadDir(cfg.Output)
	assert.Len(t, entries, 1, "only the holder's lock: %v", entries)

	require.NoError(t, l.Release(context.Background()))
	dedup(t, cfg)
	_, err = os.Stat(filepath.Join(cfg.Output, runlock.Name))
	assert.True(t, os.IsNotExist(err), "the lock is released after the run")
}

// Case 3: a failed run removes its temporary files (keeping only its log), and the next
// run removes that directory and says so.
func TestFailedRunCleansUpAndTheNextRunRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	in := writeLines(t, filepath.Join(dir, "dup.jsonl"), jsonDoc("x", "first text"), jsonDoc("x", "second text"))
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{in}, t.TempDir()
	_, err := Run(context.Background(), cfg, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the runner's log is "+filepath.Join(cfg.Output, tempPrefix))
	assertNothingCommitted(t, cfg.Output)
	// A directory as a killed run leaves it, with part files.
	killed := filepath.Join(cfg.Output, tempPrefix+"0123456789abcdef")
	require.NoError(t, os.MkdirAll(filepath.Join(killed, "parts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(killed, "parts", "x.kept"), []byte("x\n"), 0o644))

	var warn bytes.Buffer
	good := seedConfig(t)
	good.Output, good.Warnings = cfg.Output, &warn
	dedup(t, good) // fails on a leftover directory
	assert.Contains(t, warn.String(), "removed 2 temporary directories left in "+cfg.Output)
}

// Case 4: an --output that cannot be a directory fails before the pipeline, naming it.
func TestUnusableOutputFailsFirst(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, out := range []string{file, filepath.Join(file, "sub")} {
		cfg := seedConfig(t)
		cfg.Output = out
		_, err := Run(context.Background(), cfg, nil)
		require.Error(t, err)
		var u UsageError
		assert.True(t, errors.As(err, &u), "%v", err)
		assert.Contains(t, err.Error(), "--output "+out)
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(t.TempDir(), "ro")
		require.NoError(t, os.Mkdir(ro, 0o555))
		cfg := seedConfig(t)
		cfg.Output = ro
		_, err := Run(context.Background(), cfg, nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "--output "+ro)
	}
}

// Case 5: a directory as --input says what to give instead; every enumerated flag is
// checked before the pipeline.
func TestInputDirectoryAndFlagValues(t *testing.T) {
	cfg := seedConfig(t)
	cfg.Inputs = []string{filepath.Dir(cfg.Inputs[0])}
	_, err := Run(context.Background(), cfg, nil)
	require.Error(t, err)
	var u UsageError
	assert.True(t, errors.As(err, &u))
	assert.Contains(t, err.Error(), "--input")
	assert.Contains(t, err.Error(), "is a directory: give "+cfg.Inputs[0]+"/*.jsonl")

	for flag, set := range map[string]func(*Config){
		"--format":          func(c *Config) { c.Format = "xml" },
		"--seed":            func(c *Config) { c.Seed = -1 },
		"--on-damaged-file": func(c *Config) { c.OnDamagedFile = "ignore" },
		"--lsh":             func(c *Config) { c.LSH = "fast"; c.Bands, c.Rows = 16, 8 },
	} {
		c := seedConfig(t)
		set(&c)
		_, err := Run(context.Background(), c, nil)
		require.Error(t, err, flag)
		assert.True(t, errors.As(err, &u), flag)
		assert.True(t, strings.HasPrefix(err.Error(), flag+": "), "%s: %v", flag, err)
		entries, _ := os.ReadDir(c.Output)
		assert.Empty(t, entries, "%s: nothing is created for a bad flag", flag)
	}
}

// Case 6: the duplicate-id message gives advice that works.
func TestDuplicateIDHint(t *testing.T) {
	dir := t.TempDir()
	in := writeLines(t, filepath.Join(dir, "dup.jsonl"), jsonDoc("x", "first text"), jsonDoc("x", "second text"))
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output = []string{in}, t.TempDir()
	_, err := Run(context.Background(), cfg, nil)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "drop --id-field")
	assert.Contains(t, err.Error(), "missing or empty gets the id FILE:LINE")
}

// An --output that an --input glob reaches is warned about: the next run with that
// --input would read kept.jsonl back; a run that would not gets no warning.
func TestOutputUnderInputGlobWarns(t *testing.T) {
	seed, err := os.ReadFile(filepath.Join(repotest.Root(t), "testdata", "seed.jsonl"))
	require.NoError(t, err)
	for _, tc := range []struct {
		out  string // under the input directory
		warn bool
	}{{"", true}, {"out", false}} {
		// Each case has an input directory of its own: the first case's outputs would
		// otherwise be the second case's inputs.
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "seed.jsonl"), seed, 0o644))
		var warn bytes.Buffer
		cfg := seedConfig(t)
		cfg.Inputs, cfg.Output, cfg.Warnings = []string{filepath.Join(dir, "*.jsonl")}, filepath.Join(dir, tc.out), &warn
		dedup(t, cfg)
		if tc.warn {
			assert.Contains(t, warn.String(), "matches the outputs kept.jsonl, removed.jsonl, rejected.jsonl, clusters.jsonl in --output "+dir)
		} else {
			assert.Empty(t, warn.String())
		}
	}
}

// An input that is not a regular file (a FIFO would block the reader, and is read more
// than once) is refused before the pipeline, naming it and what it is.
func TestInputNotARegularFileFailsFirst(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "in.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	// Without the check the reader would wait for a writer: this one ends the wait.
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
		}
	}()
	cfg := seedConfig(t)
	cfg.Inputs = append(cfg.Inputs, fifo)
	_, err := Run(context.Background(), cfg, nil)
	require.Error(t, err)
	var u UsageError
	assert.True(t, errors.As(err, &u), "%v", err)
	assert.Equal(t, "--input: "+fifo+": is a pipe (FIFO), not a regular file (an input is read more than once, which only a regular file can give)", err.Error())
	entries, _ := os.ReadDir(cfg.Output)
	assert.Empty(t, entries, "nothing is created for an input refused")
}
