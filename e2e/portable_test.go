package e2e

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPortableRunnerMatchesEmbedded submits dedup through the portable (universal) runner
// to a Prism job server running as its own process, the way a Flink or Spark job server
// is used, and checks that the outputs equal those of the default embedded run.
func TestPortableRunnerMatchesEmbedded(t *testing.T) {
	bin := binaries(t)
	prism := startServer(t, "prism", filepath.Join(bin, "prism"), func(port int) []string {
		return []string{
			"-job_port=" + strconv.Itoa(port),
			"-serve_http=false", // no web UI, so no second fixed port to clash on
			"-log_kind=text",
			// A safety net: should this test process die without its cleanup, the job
			// server still goes away on its own.
			"-idle_shutdown_timeout=5m",
		}
	})

	t.Run("seed", func(t *testing.T) {
		embedded, portable := embeddedAndPortable(t, prism, "neardup-e2e-seed",
			"--input", "testdata/seed.jsonl", "--ngram", "2", "--threshold", "0.8")
		assertSeedResult(t, embedded)
		assertSameFiles(t, embedded, portable)
	})

	t.Run("generated", func(t *testing.T) {
		// A corpus with planted near-duplicates: many clusters and LSH buckets, so that
		// equal outputs say something about determinism across runners.
		const n = 2000
		corpus := filepath.Join(t.TempDir(), "corpus.jsonl")
		neardup(t, nil, "gen", "--n", strconv.Itoa(n), "--seed", "7", "--output", corpus)
		embedded, portable := embeddedAndPortable(t, prism, "neardup-e2e-generated",
			"--input", corpus, "--threshold", "0.8")

		kept := strings.Count(string(embedded["kept.jsonl"]), "\n")
		removed := jsonLines(t, embedded["removed.jsonl"])
		clusters := jsonLines(t, embedded["clusters.jsonl"])
		assert.Equal(t, n, kept+len(removed), "every generated document is kept or removed")
		require.NotEmpty(t, removed, "the generated corpus has planted duplicates")
		require.NotEmpty(t, clusters)
		assert.Empty(t, embedded["rejected.jsonl"])
		assertSameFiles(t, embedded, portable)
	})
}

// embeddedAndPortable runs `neardup dedup flags...` twice, embedded (default Prism) and on
// the job server through --runner=universal with a LOOPBACK environment, and returns both
// runs' outputs.
func embeddedAndPortable(t *testing.T, prism *server, jobName string, flags ...string) (map[string][]byte, map[string][]byte) {
	t.Helper()
	embeddedDir := filepath.Join(t.TempDir(), "embedded")
	portableDir := filepath.Join(t.TempDir(), "portable")

	neardup(t, nil, append([]string{"dedup", "--quiet", "--output", embeddedDir}, flags...)...)
	_, stderr := neardup(t, nil, append([]string{"dedup", "--quiet", "--output", portableDir,
		"--runner=universal", "--endpoint=" + prism.addr, "--environment_type=LOOPBACK",
		"--job_name=" + jobName}, flags...)...)

	// The job ran on the separate server, not on a Prism started inside neardup: the
	// server logged the job by name, and neardup did not serve a job endpoint itself.
	assert.Contains(t, prism.log(t), jobName, "the job server's log does not mention the job")
	assert.NotContains(t, stderr, "Serving JobManagement", "neardup started its own job server")
	return readLocalOutputs(t, embeddedDir), readLocalOutputs(t, portableDir)
}
