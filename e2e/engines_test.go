package e2e

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// engineJVM are the flags every engine JVM runs with, as docs/engines.md starts them: a
// job of minutes spends more CPU in C2's compiles than the compiled code saves, and the
// parallel collector costs less CPU than G1 on few cores (docs/engines.md#the-jvms-flags).
var engineJVM = []string{"-XX:TieredStopAtLevel=1", "-XX:+UseParallelGC"}

// engine is the job server of a cluster engine (Flink or Spark), started by a test, and
// what neardup needs to submit jobs to it whose SDK workers are separate processes.
type engine struct {
	name   string // the --runner value: flink or spark
	server *server
	// artifacts is the job server's --artifacts-dir, where it stages each job's worker
	// binary; a job's staging directory is removed when the job ends.
	artifacts string
	// failed names the first job that failed on the engine. Later jobs fail at once: an
	// engine left holding a failed job's slots would hang every later one until its
	// timeout, and the package's.
	failed string
	// sparkLocal and sparkWork are a Spark cluster's workers' SPARK_LOCAL_DIRS and work
	// directories.
	sparkLocal, sparkWork []string
	// filesToStage is the jobs' --files_to_stage: an empty jar (emptyJar) where the
	// runner would ship the job server's classpath to the cluster with every job.
	filesToStage string
	// blobDirs are a Flink session cluster's JobManager's and TaskManagers' temporary
	// directories, which hold their blob stores: the jars each job ships.
	blobDirs []string
}

// emptyJar writes a jar with no entries into dir and returns its path: what a job ships
// to executors and TaskManagers that hold Beam's classes already (docs/engines.md).
func emptyJar(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "nothing.jar")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, zip.NewWriter(f).Close())
	require.NoError(t, f.Close())
	return path
}

// jarsShipped returns the files under dirs that are jars (zip archives of at least one
// entry) other than copies of staged: what a cluster's workers received for their class
// path, whatever they named it.
func jarsShipped(t *testing.T, dirs []string, staged string) []string {
	t.Helper()
	want, err := os.ReadFile(staged)
	require.NoError(t, err)
	var jars []string
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			f, err := os.Open(path)
			if err != nil {
				return nil
			}
			defer f.Close()
			head := make([]byte, 4)
			if _, err := io.ReadFull(f, head); err != nil || string(head) != "PK\x03\x04" {
				return nil
			}
			if got, err := os.ReadFile(path); err == nil && bytes.Equal(got, want) {
				return nil
			}
			jars = append(jars, path)
			return nil
		})
	}
	return jars
}

// blobsGone is how long a Flink session cluster may keep a finished job's blobs:
// flinkSessionConf's blob.service.cleanup.interval twice (a TaskManager deletes them at
// the first cleanup after that interval has passed since the job released them), and
// time for the job to be released.
const blobsGone = 30 * time.Second

// jobBlobsLeft waits up to timeout for the blob stores under dirs to hold no job's
// files (Flink keeps them under job_<id> directories) and returns the files left.
func jobBlobsLeft(dirs []string, timeout time.Duration) []string {
	return filesLeft(dirs, func(path string, d fs.DirEntry) bool {
		return d.Type().IsRegular() && strings.HasPrefix(filepath.Base(filepath.Dir(path)), "job_")
	}, timeout)
}

// filesLeft waits up to timeout for no entry under dirs to be one that left reports, and
// returns those entries when it gives up (none once they are gone).
func filesLeft(dirs []string, left func(path string, d fs.DirEntry) bool, timeout time.Duration) []string {
	deadline := time.Now().Add(timeout)
	for {
		var files []string
		for _, dir := range dirs {
			_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err == nil && left(path, d) {
					files = append(files, path)
				}
				return nil
			})
		}
		if len(files) == 0 || time.Now().After(deadline) {
			return files
		}
		time.Sleep(200 * time.Millisecond)
	}
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

var jobCount atomic.Int64

// run runs `neardup args...` as a job on the engine, with env added to the launcher's and
// the workers' environment, and checks that the job ran there: in worker processes of its
// own (neardup booting itself, with the job's worker TMPDIR), with nothing passing through
// the launcher's temporary directory, nothing left in the workers', and named in the job
// server's log.
func (e *engine) run(t *testing.T, env []string, args ...string) {
	t.Helper()
	e.start(t, env, args...).wait(t)
}

// engineJob is a job started by engine.start.
type engineJob struct {
	e                      *engine
	name                   string
	args                   []string
	launcherTmp, workerTmp string
	cmd                    *exec.Cmd
	stderr                 strings.Builder
	workers                *workerWatch
}

// start starts `neardup args...` on the engine as run does, without waiting for it.
func (e *engine) start(t *testing.T, env []string, args ...string) *engineJob {
	t.Helper()
	if e.failed != "" {
		t.Fatalf("not run: %s failed on %s earlier", e.failed, e.name)
	}
	j := &engineJob{e: e, args: args, launcherTmp: t.TempDir(), workerTmp: t.TempDir()}
	workerEnv := map[string]string{"TMPDIR": j.workerTmp}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		workerEnv[k] = v
	}
	nd := filepath.Join(binaries(t), "neardup")
	cfg, err := json.Marshal(map[string]any{"command": nd, "env": workerEnv})
	require.NoError(t, err)
	j.name = fmt.Sprintf("neardup-e2e-%s-%d", e.name, jobCount.Add(1))
	j.cmd = exec.Command(nd, append(args,
		"--runner="+e.name, "--endpoint="+e.server.addr, "--job_name="+j.name,
		"--parallelism="+strconv.Itoa(engineParallelism),
		"--worker_binary="+nd,
		"--environment_type=PROCESS", "--environment_config="+string(cfg))...)
	if e.filesToStage != "" {
		j.cmd.Args = append(j.cmd.Args, "--files_to_stage="+e.filesToStage)
	}
	j.cmd.Dir = repoRoot(t)
	j.cmd.Env = neardupEnv(j.launcherTmp, env)
	j.cmd.Stderr = &j.stderr
	j.workers = watchWorkers(j.workerTmp)
	require.NoError(t, j.cmd.Start())
	t.Cleanup(func() {
		if j.cmd.ProcessState == nil {
			_ = j.cmd.Process.Kill()
			_ = j.cmd.Wait()
		}
		j.workers.stop()
	})
	return j
}

// exit waits for the job's launcher (up to engineRunTimeout) and returns its error and
// the SDK worker processes seen.
func (j *engineJob) exit() (error, watched) {
	timer := time.AfterFunc(engineRunTimeout, func() { _ = j.cmd.Process.Kill() })
	err := j.cmd.Wait()
	timer.Stop()
	return err, j.workers.stop()
}

// wait waits for the job's launcher, fails the test if the job failed, checks what run
// checks and returns the launcher's stderr.
func (j *engineJob) wait(t *testing.T) string {
	t.Helper()
	err, seen := j.exit()
	pids := seen.boots
	if err != nil {
		j.e.failed = j.name
		t.Fatalf("job %s (neardup %s) on %s: %v\nneardup's stderr, last lines:\n%s\nthe %s job server's log, last lines:\n%s",
			j.name, strings.Join(j.args, " "), j.e.name, err, lastLines(j.stderr.String(), 30), j.e.name, lastLines(j.e.server.log(t), 60))
	}
	assert.NotEmpty(t, pids, "no SDK worker process (neardup booting itself) ran with TMPDIR=%s", j.workerTmp)
	t.Logf("job %s started %d SDK workers", j.name, len(pids))
	assert.Empty(t, seen.fetched, "SDK workers of job %s fetched the staged binary instead of running the booting one, which is the same", j.name)
	if j.e.name == "spark" {
		// Without environment_cache_millis (internal/portable) Spark starts workers for
		// every task of every stage: dozens a job.
		assert.LessOrEqual(t, len(pids), sparkMaxWorkers, "Spark job %s: SDK workers are not reused across stages", j.name)
	}
	launcher, err := os.ReadDir(j.launcherTmp)
	require.NoError(t, err)
	assert.Empty(t, launcher, "the launcher left files in its temporary directory")
	assert.Contains(t, j.e.server.log(t), j.name, "the %s job server's log does not mention job %s", j.e.name, j.name)
	if j.e.filesToStage != "" {
		// The job server's log does not say what it shipped (Beam's "filesToStage was not
		// specified" never reaches it); the workers' directories show it.
		assert.Empty(t, jarsShipped(t, append(slices.Clone(j.e.sparkWork), j.e.sparkLocal...), j.e.filesToStage),
			"the %s cluster received jars for job %s besides --files_to_stage", j.e.name, j.name)
	}
	if j.e.blobDirs != nil {
		assert.Empty(t, jobBlobsLeft(j.e.blobDirs, blobsGone),
			"the Flink cluster keeps the jars job %s shipped (blob.service.cleanup.interval)", j.name)
	}
	assert.Empty(t, workersLeft(t, j.workerTmp), "SDK worker processes of job %s still run after it ended", j.name)
	left, err := os.ReadDir(j.workerTmp)
	require.NoError(t, err)
	assert.Empty(t, left, "the SDK workers left files in their TMPDIR")
	assert.Empty(t, j.e.stagedLeft(), "job %s left files staged in the job server's artifacts directory", j.name)
	return j.stderr.String()
}

// stagedLeft waits up to ten seconds for the job server's artifacts directory to hold no
// file (the server removes a job's staged files once it has seen the job end) and
// returns the files left.
func (e *engine) stagedLeft() []string {
	return filesLeft([]string{e.artifacts}, func(_ string, d fs.DirEntry) bool { return !d.IsDir() }, 10*time.Second)
}

// workerWatch records the SDK worker processes of one job while it runs: the processes
// whose environment holds TMPDIR=dir.
type workerWatch struct {
	done chan struct{}
	seen chan watched
}

// watched is what a workerWatch saw: the boot processes, and the workers that ran a
// fetched binary instead of the booting one.
type watched struct{ boots, fetched map[int]bool }

func watchWorkers(dir string) *workerWatch {
	w := &workerWatch{done: make(chan struct{}), seen: make(chan watched, 1)}
	go func() {
		seen := watched{map[int]bool{}, map[int]bool{}}
		for {
			for _, pid := range workerPids(dir) {
				seen.boots[pid] = true
			}
			for _, pid := range processesWith(dir, "/neardup-worker-") {
				seen.fetched[pid] = true
			}
			select {
			case <-w.done:
				w.seen <- seen
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return w
}

// stop ends the watch and returns what it saw (the first call's answer; later calls
// return nothing).
func (w *workerWatch) stop() watched {
	select {
	case <-w.done:
		return watched{}
	default:
	}
	close(w.done)
	return <-w.seen
}

// workerPids returns the processes neardup's boot started as SDK workers with
// TMPDIR=dir: those whose command line holds --provision_endpoint (the boot program) and
// not their workers, so that each counts once.
func workerPids(dir string) []int { return processesWith(dir, "--provision_endpoint") }

// processesWith returns the processes whose environment holds TMPDIR=dir and whose
// command line holds arg.
func processesWith(dir, arg string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		env, err := os.ReadFile(p)
		if err != nil || !strings.Contains("\x00"+string(env)+"\x00", "\x00TMPDIR="+dir+"\x00") {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), arg) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		pids = append(pids, pid)
	}
	return pids
}

// workersLeft waits up to half a minute for the processes whose environment holds
// TMPDIR=dir (the SDK workers of one job) to exit, kills those that do not, and returns
// their command lines. Spark's workers outlive their job by --environment_cache_millis.
func workersLeft(t *testing.T, dir string) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		left := map[int]string{}
		for _, pid := range processesWith(dir, "") {
			b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
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
