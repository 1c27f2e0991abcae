package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFlinkMatchesEmbedded runs the engine matrix on Beam's Flink job server (Flink 1.19,
// an embedded cluster in the server's JVM) at parallelism 2, its SDK workers separate
// processes started by Flink.
func TestFlinkMatchesEmbedded(t *testing.T) {
	home := engineHome(t, "flink")
	runEngineMatrix(t, startFlink(t, home))
}

// flinkConf is the Flink configuration the job server's jobs run with: a restart
// strategy, without which a Flink batch job fails at its first lost SDK worker (Beam's
// Flink runner applies none of its own to batch jobs).
const flinkConf = `restart-strategy.type: fixed-delay
restart-strategy.fixed-delay.attempts: 3
restart-strategy.fixed-delay.delay: 1 s
`

// startFlink starts the Flink job server of the classpath in home (see .ci/engines.sh).
func startFlink(t *testing.T, home string) *engine {
	t.Helper()
	cp, err := os.ReadFile(filepath.Join(home, "classpath"))
	require.NoError(t, err)
	tmp := t.TempDir()
	artifacts := filepath.Join(tmp, "artifacts")
	conf := filepath.Join(tmp, "conf")
	require.NoError(t, os.MkdirAll(conf, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(conf, "flink-conf.yaml"), []byte(flinkConf), 0o644))
	srv := startServer(t, "flink-job-server", "java", func(port int) []string {
		return []string{"-Xmx1g", "-Djava.io.tmpdir=" + tmp, "-cp", strings.TrimSpace(string(cp)),
			"org.apache.beam.runners.flink.FlinkJobServerDriver",
			"--job-port=" + strconv.Itoa(port), "--artifact-port=0", "--expansion-port=0",
			"--artifacts-dir=" + artifacts, "--flink-master=[local]", "--flink-conf-dir=" + conf}
	})
	return &engine{name: "flink", server: srv, artifacts: artifacts}
}
