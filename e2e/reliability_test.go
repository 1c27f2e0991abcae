package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpus writes n distinct JSONL documents, big enough that a run lasts a few seconds.
func corpus(t *testing.T, n int) string { return paddedCorpus(t, n, 0) }

// paddedCorpus is corpus with each text padded by about pad bytes of one repeated
// word: more bytes to read and write at little cost in shingles.
func paddedCorpus(t *testing.T, n, pad int) string {
	t.Helper()
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		filler := strings.Repeat(fmt.Sprintf(" p%d", i%1000), pad/5)
		line, _ := json.Marshal(map[string]string{"id": fmt.Sprintf("d%06d", i),
			"text": fmt.Sprintf("document %d talks about %d and %d with words w%d w%d w%d", i, i*7, i*13, i%97, i%89, i%83) + filler})
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "corpus.jsonl")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	return path
}

// started is a neardup process running in the background.
type started struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	exited         chan struct{}
	err            error // the exit status, once exited is closed
}

// wait waits for the process to end and returns its exit status.
func (p *started) wait() error {
	<-p.exited
	return p.err
}

func startNeardup(t *testing.T, args ...string) *started {
	t.Helper()
	p := &started{cmd: exec.Command(filepath.Join(binaries(t), "neardup"), args...), exited: make(chan struct{})}
	p.cmd.Dir = repoRoot(t)
	p.cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	require.NoError(t, p.cmd.Start())
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill() // only this test's process; a no-op once it has ended
		p.wait()
	})
	return p
}

// runNeardup runs neardup to the end and returns its exit status and output.
func runNeardup(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	stdout, stderr, err := execNeardup(t, runTimeout, nil, args...)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), stdout, stderr
	}
	require.NoError(t, err)
	return 0, stdout, stderr
}

// waitFor polls until cond holds (the run reached a stage) or the process ended.
func waitFor(t *testing.T, p *started, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(runTimeout)
	for !cond() {
		select {
		case <-p.exited:
			t.Fatalf("neardup ended (%v) before %s\nstderr:\n%s", p.err, what, p.stderr.String())
		default:
		}
		require.True(t, time.Now().Before(deadline), "waiting for %s", what)
		time.Sleep(5 * time.Millisecond)
	}
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

func tempDirs(t *testing.T, dir string) []string {
	m, err := filepath.Glob(filepath.Join(dir, ".neardup-tmp-*"))
	require.NoError(t, err)
	return m
}

// Case 2: a second run into an output directory in use fails at once, naming the run
// that holds it; the first run's outputs are its own.
func TestConcurrentRunsIntoOneOutput(t *testing.T) {
	big := corpus(t, 20000)
	out := filepath.Join(t.TempDir(), "out")
	first := startNeardup(t, "dedup", "--input", big, "--output", out, "--quiet")
	waitFor(t, first, "the temporary directory", func() bool {
		m, _ := filepath.Glob(filepath.Join(out, ".neardup-tmp-*", "beam.log"))
		return len(m) > 0
	})

	code, _, stderr := runNeardup(t, "dedup", "--input", "testdata/seed.jsonl", "--output", out, "--quiet", "--ngram", "2")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, fmt.Sprintf("another neardup run is writing to this directory (pid %d on host", first.cmd.Process.Pid))

	require.NoError(t, first.wait(), first.stderr.String())
	st, err := os.ReadFile(filepath.Join(out, "stats.json"))
	require.NoError(t, err)
	assert.Contains(t, string(st), `"documents_read": 20000`, "the committed outputs are the first run's")
	assert.False(t, exists(filepath.Join(out, ".neardup-lock")), "the lock is released")
}

// Case 3: a run killed with SIGKILL at any stage leaves nothing finished-looking, and the
// next run takes over its lock, removes its temporary directory and commits normally.
func TestKilledRunsAreCleanedUpByTheNextRun(t *testing.T) {
	// The texts are padded so that the output step, which must be caught while it
	// writes, lasts long enough to be seen between two polls.
	big := paddedCorpus(t, 60000, 1000)
	runDirReady := func(out string) bool {
		m, _ := filepath.Glob(filepath.Join(out, ".neardup-tmp-*", "beam.log"))
		return len(m) > 0
	}
	var readyAt time.Time
	stages := []struct {
		name string
		when func(out string) bool
	}{
		{"temporary directory created", runDirReady},
		{"pipeline running", func(out string) bool {
			if readyAt.IsZero() && runDirReady(out) {
				readyAt = time.Now()
			}
			return !readyAt.IsZero() && time.Since(readyAt) > 400*time.Millisecond
		}},
		{"writing outputs", func(out string) bool {
			m, _ := filepath.Glob(filepath.Join(out, ".neardup-tmp-*", "parts"))
			return len(m) > 0
		}},
	}
	for _, stage := range stages {
		t.Run(stage.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			p := startNeardup(t, "dedup", "--input", big, "--output", out, "--quiet")
			waitFor(t, p, stage.name, func() bool { return stage.when(out) })
			require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
			p.wait()
			for _, name := range outputNames {
				assert.False(t, exists(filepath.Join(out, name)), "%s after a kill at %q", name, stage.name)
			}
			require.NotEmpty(t, tempDirs(t, out))

			code, _, stderr := runNeardup(t, "dedup", "--input", "testdata/seed.jsonl", "--output", out, "--ngram", "2", "--quiet")
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stderr, fmt.Sprintf("took over the lock of a run that is no longer running (pid %d", p.cmd.Process.Pid))
			assert.Contains(t, stderr, "removed 1 temporary directory left in "+out)
			assertSeedResult(t, readLocalOutputs(t, out)) // exactly the outputs: no tmp dir, no lock
		})
	}
}

// Case 7: a failed run prints one error line, not the runner's logs; the log is kept and
// named; a --quiet run prints nothing but its result; help exits 0.
func TestErrorsAreShortAndQuietIsQuiet(t *testing.T) {
	dup := filepath.Join(t.TempDir(), "dup.jsonl")
	require.NoError(t, os.WriteFile(dup, []byte(`{"id":"a","text":"x y z"}`+"\n"+`{"id":"a","text":"u v w"}`+"\n"), 0o644))
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runNeardup(t, "dedup", "--input", dup, "--output", out)
	assert.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := lines[len(lines)-1]
	assert.True(t, strings.HasPrefix(last, "neardup dedup: error: duplicate id \"a\""), stderr)
	assert.Less(t, len(stderr), 1500, "no runner logs on the terminal:\n%s", stderr)
	assert.NotContains(t, stderr, "level=")
	i := strings.Index(last, "the runner's log is ")
	require.GreaterOrEqual(t, i, 0, last)
	logPath := strings.TrimSuffix(last[i+len("the runner's log is "):], ")")
	if !filepath.IsAbs(logPath) {
		logPath = filepath.Join(repoRoot(t), logPath)
	}
	b, err := os.ReadFile(logPath)
	require.NoError(t, err)
	assert.Contains(t, string(b), "duplicate id", "the log holds the runner's account")

	code, stdout, stderr := runNeardup(t, "dedup", "--input", "testdata/seed.jsonl", "--output", filepath.Join(t.TempDir(), "q"), "--ngram", "2", "--quiet")
	assert.Equal(t, 0, code)
	assert.Empty(t, stderr, "--quiet")
	assert.Contains(t, stdout, "4 documents: 3 kept, 1 removed")

	for _, args := range [][]string{{"--help"}, {"dedup", "--help"}} {
		code, stdout, _ := runNeardup(t, args...)
		assert.Equal(t, 0, code, "%v", args)
		assert.True(t, strings.HasPrefix(stdout, "usage: neardup"), "%v: %s", args, stdout)
	}
}
