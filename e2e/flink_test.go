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
	runEngineMatrix(t, startFlink(t, engineHome(t, "flink")))
}

// TestFlinkWorkerLostSDKWorker kills one SDK worker of a Flink job while it runs: the job
// restarts what failed (the restart strategy of the job server's flink-conf.yaml, as
// docs/engines.md sets it) and every output, stats.json's counts included, equals the
// embedded run's. Its job server is its own, not the matrix's: on one warmed by the
// matrix's jobs, the job ended before any worker had been busy for busyWorker's settle
// time.
func TestFlinkWorkerLostSDKWorker(t *testing.T) {
	workerLost(t, startFlink(t, engineHome(t, "flink")))
}

// flinkConf is the Flink configuration the job server's jobs run with: a restart
// strategy, without which a Flink batch job fails at its first lost SDK worker (Beam's
// Flink runner applies none of its own to batch jobs).
const flinkConf = `restart-strategy.type: fixed-delay
restart-strategy.fixed-delay.attempts: 3
restart-strategy.fixed-delay.delay: 1 s
`

// startFlink starts the Flink job server of the classpath in home (see .ci/engines.sh)
// with a Flink cluster embedded in its JVM.
func startFlink(t testing.TB, home string) *engine {
	t.Helper()
	return startFlinkJobServer(t, home, "[local]", true)
}

// flinkClasspath returns the classpath of home (see .ci/engines.sh): Beam's Flink job
// server, which holds Flink's runtime.
func flinkClasspath(t testing.TB, home string) string {
	t.Helper()
	cp, err := os.ReadFile(filepath.Join(home, "classpath"))
	require.NoError(t, err)
	return strings.TrimSpace(string(cp))
}

// startFlinkJobServer starts the Flink job server of home submitting to master: [local]
// for a cluster in its JVM, or a session cluster's REST address; with conf, its
// configuration holds flinkConf, which a cluster in its JVM runs with.
func startFlinkJobServer(t testing.TB, home, master string, conf bool) *engine {
	t.Helper()
	js := flinkJobServerSpec(t, home, master, conf)
	return js.engine(startServers(t, js.spec)[0])
}

// flinkJobServer is a Flink job server to start (spec), and its engine once started.
type flinkJobServer struct {
	spec      serverSpec
	artifacts string
}

func (js flinkJobServer) engine(srv *server) *engine {
	return &engine{name: "flink", server: srv, artifacts: js.artifacts}
}

// flinkJobServerSpec returns the Flink job server startFlinkJobServer starts.
func flinkJobServerSpec(t testing.TB, home, master string, conf bool) flinkJobServer {
	t.Helper()
	cp := flinkClasspath(t, home)
	tmp := t.TempDir()
	artifacts := filepath.Join(tmp, "artifacts")
	var confFlag []string
	if conf {
		dir := filepath.Join(tmp, "conf")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "flink-conf.yaml"), []byte(flinkConf), 0o644))
		confFlag = []string{"--flink-conf-dir=" + dir}
	}
	return flinkJobServer{artifacts: artifacts, spec: serverSpec{"flink-job-server", "java", nil, func(port int) []string {
		return append(append(append([]string{}, engineJVM...), "-Xmx1g", "-Djava.io.tmpdir="+tmp, "-cp", cp,
			"org.apache.beam.runners.flink.FlinkJobServerDriver",
			"--job-port="+strconv.Itoa(port), "--artifact-port=0", "--expansion-port=0",
			"--artifacts-dir="+artifacts, "--flink-master="+master), confFlag...)
	}}}
}
