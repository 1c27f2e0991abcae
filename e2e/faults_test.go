package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// faultDocs is the fault tests' corpus size: large enough that an engine's job keeps its
// SDK workers busy for seconds on a quiet machine, so that one can be killed mid-bundle.
const faultDocs = 8 * matrixGenerated

// workerLost kills one SDK worker of a job on e, the busiest, while it runs, and checks
// that every output, stats.json's counts included, equals the embedded run's.
func workerLost(t *testing.T, e *engine) {
	dir := faultCorpus(t)
	flags := []string{"dedup", "--quiet", "--layout", "single", "--input", filepath.Join(dir, "*.jsonl"), "--threshold", "0.8"}
	want := embeddedRun(t, nil, flags...)
	out := filepath.Join(t.TempDir(), "out")
	j := e.start(t, nil, append(flags, "--output", out)...)
	pid := busyWorker(t, j, 2*time.Second)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	t.Logf("killed SDK worker %d of job %s", pid, j.name)
	j.wait(t)
	got := readTree(t, out)
	assertSameFiles(t, want, got)
}

// faultCorpus returns the directory of the fault tests' corpus: faultDocs generated
// documents in matrixParts files.
func faultCorpus(t *testing.T) string {
	return fixture(t, "generated-faults", func(dir string) { splitCorpus(t, genCorpus(t, faultDocs, 7), dir, matrixParts) })
}

// busyWorker waits until the job has had SDK workers (processes run with --worker=true by
// neardup's boot, with TMPDIR=j.workerTmp) for settle, then returns the pid of the
// busiest of them (the one that used the most CPU in the last half second): a worker in
// the middle of its bundles, not one an earlier stage left idle. It fails the test if the
// launcher exits first.
func busyWorker(t *testing.T, j *engineJob, settle time.Duration) int {
	t.Helper()
	var since time.Time
	ticks := map[int]int{}
	for !exited(j.cmd.Process.Pid) {
		busiest, most := 0, 0
		for _, pid := range processesWith(j.workerTmp, "--worker=true") {
			if since.IsZero() {
				since = time.Now()
			}
			now := cpuTicks(pid)
			if last, ok := ticks[pid]; ok && now-last > most {
				busiest, most = pid, now-last
			}
			ticks[pid] = now
		}
		if busiest != 0 && time.Since(since) >= settle {
			return busiest
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("job %s ended before an SDK worker was busy; neardup's stderr, last lines:\n%s", j.name, lastLines(j.stderr.String(), 20))
	return 0
}

// exited reports whether process pid has ended (a zombie not yet waited for counts).
func exited(pid int) bool {
	f := procStat(pid)
	return len(f) == 0 || f[0] == "Z"
}

// cpuTicks returns the user and system CPU ticks process pid has used (0 if it is gone).
func cpuTicks(pid int) int {
	f := procStat(pid)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return u + s
}

// procStat returns the fields of /proc/PID/stat after the command name (which is in
// parentheses and may hold spaces), from the state on; nil if the process is gone.
func procStat(pid int) []string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil
	}
	return strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
}

// TestWorkerLostLauncherSignalled stops the launcher of a job on a job server with
// SIGTERM and with SIGINT while the job's workers run: the launcher cancels the job, and
// the job server reports it cancelled. The job server is Prism, reached as the Flink and
// Spark job servers are (--runner=flink goes through internal/portable).
func TestWorkerLostLauncherSignalled(t *testing.T) {
	e := prismEngine(t)
	dir := fixture(t, "generated", func(dir string) { splitCorpus(t, genCorpus(t, matrixGenerated, 7), dir, matrixParts) })
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			launcherCancels(t, e, sig, "--input", filepath.Join(dir, "*.jsonl"))
		})
	}
}

// TestWorkerLostLauncherKilled kills the launcher of a job with SIGKILL while the job's
// workers run, so that it cannot cancel the job; the next run into the same output
// cancels it, says so, and runs.
func TestWorkerLostLauncherKilled(t *testing.T) {
	e := prismEngine(t)
	dir := fixture(t, "generated", func(dir string) { splitCorpus(t, genCorpus(t, matrixGenerated, 7), dir, matrixParts) })
	out := filepath.Join(t.TempDir(), "out")
	j := e.start(t, nil, "dedup", "--quiet", "--input", filepath.Join(dir, "*.jsonl"), "--output", out)
	waitUntil(t, engineRunTimeout, "an SDK worker of job "+j.name, func() bool { return len(processesWith(j.workerTmp, "--worker=true")) > 0 })
	require.NoError(t, j.cmd.Process.Kill())
	_, _ = j.exit()
	assert.Equal(t, jobpb.JobState_RUNNING, jobState(t, e.server.addr, j.name), "the killed launcher's job runs on")

	stderr := e.start(t, nil, "dedup", "--input", filepath.Join(repoRoot(t), "testdata", "seed.jsonl"), "--ngram", "2", "--output", out).wait(t)
	assert.Contains(t, stderr, "a run that was killed left its job running: cancelled job")
	assert.Equal(t, jobpb.JobState_CANCELLED, jobState(t, e.server.addr, j.name), "the orphaned job is cancelled")
}

// prismEngine starts a Prism job server reached as the Flink job server is
// (--runner=flink goes through internal/portable), for tests of what the launcher does
// around a job, which need no Java.
func prismEngine(t *testing.T) *engine {
	bin := binaries(t)
	prism := startServer(t, "prism", filepath.Join(bin, "prism"), func(port int) []string {
		return []string{"-job_port=" + strconv.Itoa(port), "-serve_http=false", "-log_kind=text", "-idle_shutdown_timeout=5m"}
	})
	return &engine{name: "flink", server: prism}
}

// launcherCancels starts `neardup dedup inputFlags...` on e, sends sig to the launcher
// once an SDK worker runs, and checks that the launcher exits saying it cancelled the
// job and that the job server reports the job cancelled.
func launcherCancels(t *testing.T, e *engine, sig syscall.Signal, inputFlags ...string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	j := e.start(t, nil, append(append([]string{"dedup", "--quiet"}, inputFlags...), "--output", out)...)
	waitUntil(t, engineRunTimeout, "an SDK worker of job "+j.name, func() bool { return len(processesWith(j.workerTmp, "--worker=true")) > 0 })
	require.NoError(t, j.cmd.Process.Signal(sig))
	err, _ := j.exit()
	require.Error(t, err, "the launcher exits with the signal's status")
	assert.Contains(t, j.stderr.String(), "cancelled job", "the launcher's stderr:\n%s", j.stderr.String())
	var state jobpb.JobState_Enum
	waitUntil(t, 30*time.Second, "job "+j.name+" cancelled on the job server", func() bool {
		state = jobState(t, e.server.addr, j.name)
		return state == jobpb.JobState_CANCELLED
	})
	assert.Empty(t, workersLeft(t, j.workerTmp), "SDK workers of the cancelled job still run")
	left, _ := os.ReadDir(out)
	assert.Empty(t, left, "a cancelled run commits nothing to %s and removes its temporary directory", out)
}

// jobState returns the state the job service at addr reports for the job named name
// (UNSPECIFIED if it knows none).
func jobState(t *testing.T, addr, name string) jobpb.JobState_Enum {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cc.Close()
	res, err := jobpb.NewJobServiceClient(cc).GetJobs(ctx, &jobpb.GetJobsRequest{})
	require.NoError(t, err)
	for _, j := range res.GetJobInfo() {
		if j.GetJobName() == name || strings.HasPrefix(j.GetJobId(), name) {
			return j.GetState()
		}
	}
	return jobpb.JobState_UNSPECIFIED
}

// waitUntil polls cond every 100ms until it holds, failing the test after timeout.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %v", what, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
