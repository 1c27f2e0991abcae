package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSDKWorkerBoot runs dedup on a Prism job server of its own with a PROCESS
// environment whose command is the neardup binary: neardup boots its own SDK workers,
// as on Flink and Spark, without the Go SDK's boot program. When the staged worker
// binary is the booting one, nothing is fetched; when it is another (here neardup with
// bytes appended, so another sha256), it is fetched, checked and run. Either way the
// outputs equal the embedded run's and the workers leave nothing in their TMPDIR.
func TestSDKWorkerBoot(t *testing.T) {
	bin := binaries(t)
	nd := filepath.Join(bin, "neardup")
	prism := prismEngine(t).server
	// Absolute: the workers run in Prism's working directory.
	flags := []string{"dedup", "--quiet", "--layout", "single", "--input", filepath.Join(repoRoot(t), "testdata", "seed.jsonl"), "--ngram", "2", "--threshold", "0.8"}
	embedded := t.TempDir()
	neardup(t, nil, append(flags, "--output", embedded)...)
	want := readLocalOutputs(t, embedded)

	other := filepath.Join(t.TempDir(), "neardup-other")
	b, err := os.ReadFile(nd)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(other, append(b, "not the booting binary"...), 0o755))

	for _, c := range []struct{ name, worker, says string }{
		{"self", nd, "is this binary"},
		{"fetched", other, "is not this binary; fetched it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			workerTmp := filepath.Join(t.TempDir(), "not-yet-created")
			cfg, err := json.Marshal(map[string]any{"command": nd, "env": map[string]string{"TMPDIR": workerTmp}})
			require.NoError(t, err)
			out := filepath.Join(t.TempDir(), "out")
			before := strings.Count(prism.log(t), c.says)
			neardup(t, nil, append(flags, "--output", out, "--runner=universal", "--endpoint="+prism.addr,
				"--worker_binary="+c.worker, "--environment_type=PROCESS", "--environment_config="+string(cfg))...)
			assertSameFiles(t, want, readLocalOutputs(t, out))
			assert.Greater(t, strings.Count(prism.log(t), c.says), before, "no SDK worker said %q; Prism's log:\n%s", c.says, lastLines(prism.log(t), 40))
			assert.Empty(t, workersLeft(t, workerTmp), "SDK workers still run after the job")
			left, err := os.ReadDir(workerTmp)
			require.NoError(t, err, "the boot creates the workers' TMPDIR")
			assert.Empty(t, left, "the SDK workers left files in their TMPDIR")
		})
	}
}
