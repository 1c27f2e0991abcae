package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireEnginesEnv, when set (.ci/run sets it), turns a missing Java into a failure of
// the Flink and Spark tests instead of a skip.
const requireEnginesEnv = "NEARDUP_REQUIRE_ENGINES"

// engineParallelism is the parallelism every engine job runs at: more than one worker, so
// that nothing can lean on a single worker seeing every element.
const engineParallelism = 2

// sparkMaxWorkers bounds the SDK workers of one Spark job: one per executor when the job's
// environments are reused across its stages, with room for a few expiring between stages
// on a loaded machine.
const sparkMaxWorkers = 4 * sparkWorkers

// engine is the job server of a cluster engine (Flink or Spark), started by a test, and
// what neardup needs to submit jobs to it whose SDK workers are separate processes.
type engine struct {
	name   string // the --runner value: flink or spark
	server *server
	worker string // the PROCESS environment's command
	boot   string // the Go SDK's boot program, which worker runs
	// failed names the first job that failed on the engine. Later jobs fail at once: an
	// engine left holding a failed job's slots would hang every later one until its
	// timeout, and the package's.
	failed string
}

// engineHome returns the directory `.ci/engines.sh fetch name` prints: the engine's pinned,
// checksummed classpath in the cache outside the work tree, downloaded on first use. Without
// Java the calling test is skipped, loudly, unless NEARDUP_REQUIRE_ENGINES is set.
func engineHome(t *testing.T, name string) string {
	t.Helper()
	binaries(t) // skips under -short, like every e2e test
	if _, err := exec.LookPath("java"); err != nil {
		msg := fmt.Sprintf("e2e: SKIPPING the %s tests: no java on PATH (they run Beam's %s job server; install Java 17)", name, name)
		if os.Getenv(requireEnginesEnv) != "" {
			t.Fatalf("%s, and %s is set", msg, requireEnginesEnv)
		}
		fmt.Fprintf(os.Stderr, "\n*** %s ***\n\n", msg)
		t.Skip(msg)
	}
	cmd := exec.Command(filepath.Join(repoRoot(t), ".ci", "engines.sh"), "fetch", name)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, ".ci/engines.sh fetch %s:\n%s", name, stderr.String())
	return strings.TrimSpace(string(out))
}

// newEngine wraps a started job server. Its workers are the Go SDK's boot program (built
// from the module cache), each started by the engine through .ci/engines/sdk-worker.sh.
func newEngine(t *testing.T, name string, srv *server) *engine {
	t.Helper()
	return &engine{name: name, server: srv,
		worker: filepath.Join(repoRoot(t), ".ci", "engines", "sdk-worker.sh"),
		boot:   filepath.Join(binaries(t), "container")}
}

var jobCount atomic.Int64

// run runs `neardup args...` as a job on the engine, with env added to the launcher's and
// the workers' environment, and checks that the job ran there: in worker processes of its
// own (each left its directory in the job's worker TMPDIR), with nothing passing through
// the launcher's temporary directory, and named in the job server's log.
func (e *engine) run(t *testing.T, env []string, args ...string) {
	t.Helper()
	if e.failed != "" {
		t.Fatalf("not run: %s failed on %s earlier", e.failed, e.name)
	}
	launcherTmp, workerTmp := t.TempDir(), t.TempDir()
	workerEnv := map[string]string{"TMPDIR": workerTmp, "NEARDUP_BOOT": e.boot}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		workerEnv[k] = v
	}
	cfg, err := json.Marshal(map[string]any{"command": e.worker, "env": workerEnv})
	require.NoError(t, err)
	job := fmt.Sprintf("neardup-e2e-%s-%d", e.name, jobCount.Add(1))
	started := time.Now()
	t.Cleanup(func() { removeBootCopies(t, started) })

	_, stderr, err := execNeardup(t, engineRunTimeout, append([]string{"TMPDIR=" + launcherTmp}, env...), append(args,
		"--runner="+e.name, "--endpoint="+e.server.addr, "--job_name="+job,
		"--parallelism="+strconv.Itoa(engineParallelism),
		"--worker_binary="+filepath.Join(binaries(t), "neardup"),
		"--environment_type=PROCESS", "--environment_config="+string(cfg))...)
	if err != nil {
		e.failed = job
		t.Fatalf("job %s (neardup %s) on %s: %v\nneardup's stderr, last lines:\n%s\nthe %s job server's log, last lines:\n%s",
			job, strings.Join(args, " "), e.name, err, lastLines(stderr, 30), e.name, lastLines(e.server.log(t), 60))
	}

	workers, err := os.ReadDir(workerTmp)
	require.NoError(t, err)
	assert.NotEmpty(t, workers, "no SDK worker process ran in %s", workerTmp)
	t.Logf("job %s started %d SDK workers", job, len(workers))
	if e.name == "spark" {
		// Without environment_cache_millis (internal/portable) Spark starts workers for
		// every task of every stage: dozens a job.
		assert.LessOrEqual(t, len(workers), sparkMaxWorkers, "Spark job %s: SDK workers are not reused across stages", job)
	}
	launcher, err := os.ReadDir(launcherTmp)
	require.NoError(t, err)
	assert.Empty(t, launcher, "the launcher left files in its temporary directory")
	assert.Contains(t, e.server.log(t), job, "the %s job server's log does not mention job %s", e.name, job)
	assert.Empty(t, workersLeft(t, workerTmp), "SDK worker processes of job %s still run after it ended", job)
}

// workersLeft waits up to half a minute for the processes whose command line names dir
// (the SDK workers of one job) to exit, kills those that do not, and returns their
// command lines. Spark's workers outlive their job by --environment_cache_millis.
func workersLeft(t *testing.T, dir string) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		left := map[int]string{}
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			b, err := os.ReadFile(p)
			if err != nil || !strings.Contains(string(b), dir) {
				continue
			}
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			left[pid] = strings.ReplaceAll(string(b), "\x00", " ")
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			var out []string
			for pid, cmd := range left {
				if proc, err := os.FindProcess(pid); err == nil {
					_ = proc.Kill()
				}
				out = append(out, cmd)
			}
			return out
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// removeBootCopies removes the copies of the worker binary that boot makes, one per worker
// process, in /tmp/bin*/worker (a fixed directory: boot does not honour TMPDIR), made since
// the job started. A copy is recognised by being the only file of its directory and the
// size of the neardup binary the tests built.
func removeBootCopies(t *testing.T, since time.Time) {
	bin, err := os.Stat(filepath.Join(binDir, "neardup"))
	if err != nil {
		return
	}
	dirs, _ := filepath.Glob("/tmp/bin*")
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil || len(entries) != 1 || entries[0].Name() != "worker" {
			continue
		}
		fi, err := entries[0].Info()
		if err == nil && fi.Size() == bin.Size() && !fi.ModTime().Before(since.Add(-time.Second)) {
			if err := os.RemoveAll(d); err != nil {
				t.Logf("remove boot's copy of the worker binary: %v", err)
			}
		}
	}
}

// lastLines returns the last n lines of s, without Java stack frames.
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "at ") {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
