package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SIGINT or SIGTERM during a run removes its temporary directory (the runner's scratch
// in TMPDIR too) and its lock, prints one line and exits 128+signal; the next run
// starts clean, with no lock to take over.
func TestInterruptedRunCleansUp(t *testing.T) {
	big := corpus(t, 20000)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			p := startNeardup(t, "dedup", "--input", big, "--output", out, "--quiet")
			var tmp string
			for _, kv := range p.cmd.Env {
				if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
					tmp = v
				}
			}
			require.NotEmpty(t, tmp)
			waitFor(t, p, "the pipeline running", func() bool {
				m, _ := filepath.Glob(filepath.Join(out, ".neardup-tmp-*", "beam.log"))
				j, _ := filepath.Glob(filepath.Join(tmp, "neardup-job-*"))
				return len(m) > 0 && len(j) > 0 && exists(filepath.Join(out, ".neardup-lock"))
			})
			require.NoError(t, p.cmd.Process.Signal(sig))
			err := p.wait()
			require.Error(t, err)
			assert.Equal(t, 128+int(sig), p.cmd.ProcessState.ExitCode(), p.stderr.String())

			name := map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]
			assert.Equal(t, fmt.Sprintf("neardup dedup: interrupted by %s; nothing was committed to %s; its temporary directory and lock were removed\n", name, out),
				p.stderr.String(), "one line")
			assert.Empty(t, tempDirs(t, out), "the temporary directory is removed")
			assert.False(t, exists(filepath.Join(out, ".neardup-lock")), "the lock is released")
			for _, n := range outputNames {
				assert.False(t, exists(filepath.Join(out, n)), n)
			}
			left, err := os.ReadDir(tmp)
			require.NoError(t, err)
			assert.Empty(t, left, "TMPDIR is left as it was")

			code, _, stderr := runNeardup(t, "dedup", "--input", "testdata/seed.jsonl", "--output", out, "--ngram", "2", "--quiet")
			require.Equal(t, 0, code, stderr)
			assert.NotContains(t, stderr, "took over the lock")
			assertSeedResult(t, readLocalOutputs(t, out))
		})
	}
}
