package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlinkSessionMatchesEmbedded runs the generated-corpus, s3:// and one-file cases of the engine
// matrix on a Flink session cluster (a JobManager and two TaskManagers, separate JVMs on
// loopback), submitted by Beam's Flink job server with --flink-master.
func TestFlinkSessionMatchesEmbedded(t *testing.T) {
	home := engineHome(t, "flink")
	// docs/engines.md gives these commands: the configuration (with fixed ports) and the
	// TaskManagers' JVM flags.
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "engines.md"))
	require.NoError(t, err)
	assert.Contains(t, string(doc), fmt.Sprintf(flinkSessionConf, 6123, 8081, flinkSessionSlots, flinkSessionSlots), "docs/engines.md: the session cluster's configuration")
	assert.Contains(t, string(doc), strings.Join(flinkTaskManagerJVM, " "), "docs/engines.md: the TaskManagers' JVM flags")
	assert.Contains(t, string(doc), strings.Join(flinkOpens, " "), "docs/engines.md: the packages opened to Flink's JVMs")
	assert.Contains(t, string(doc), "java "+strings.Join(engineJVM, " ")+" $OPENS", "docs/engines.md: its JVMs run with engineJVM")
	runEngineMatrix(t, flinkSessionEngine(t, home, false).engine, "generated", "s3", "one-file-sharded")
}

// TestFlinkSessionWorkerLostTaskManager kills a TaskManager of a Flink session cluster,
// with the SDK workers it started (its process group: a lost machine), while it runs a
// job: the job restarts on the TaskManager left, under the restart strategy of the
// cluster's configuration, every output, stats.json's counts included, equals the
// embedded run's, and no SDK worker outlives the job (the TaskManager left keeps the
// restarted attempt's; neardup's boot ends them).
func TestFlinkSessionWorkerLostTaskManager(t *testing.T) {
	fs := flinkSessionEngine(t, engineHome(t, "flink"), true) // unfit for another test after
	dir := faultCorpus(t)
	flags := []string{"dedup", "--quiet", "--layout", "single", "--input", filepath.Join(dir, "*.jsonl"), "--threshold", "0.8"}
	want := embeddedRun(t, nil, flags...)
	out := filepath.Join(t.TempDir(), "out")
	j := fs.start(t, nil, append(flags, "--output", out)...)
	worker := busyWorker(t, j, 2*time.Second)
	tm := parentPid(parentPid(worker)) // the worker's boot process's parent
	require.Contains(t, fs.taskManagers, tm, "SDK worker %d was not started by a TaskManager", worker)
	require.NoError(t, syscall.Kill(-tm, syscall.SIGKILL))
	t.Logf("killed TaskManager %d (and its SDK workers) of job %s", tm, j.name)
	// What a killed TaskManager leaves on its disk stays there, as on a lost machine.
	fs.blobDirs = slices.DeleteFunc(fs.blobDirs, func(d string) bool { return d == fs.taskManagers[tm] })
	j.wait(t)
	assertSameFiles(t, want, readTree(t, out))
	assert.Contains(t, fs.jobManager.log(t), "switched from state RUNNING to RESTARTING", "the job did not restart")
}

// flinkSession is a Flink session cluster started by startFlinkSession, and the job
// server submitting to it.
type flinkSession struct {
	*engine
	jobManager   *server
	taskManagers map[int]string // their pids (each its process group's): their java.io.tmpdir
	daemons      []*server      // the JobManager, the TaskManagers and the job server
}

// flinkSessionTaskManagers is the number of TaskManagers, of flinkSessionSlots slots each:
// enough slots on one of them for a job at engineParallelism, so that the one left after
// a TaskManager is lost can run the job.
const (
	flinkSessionTaskManagers = 2
	flinkSessionSlots        = engineParallelism
)

// flinkSessionConf is the session cluster's configuration (flink-conf.yaml, shared by
// the JobManager and the TaskManagers), given its RPC and REST ports. The TaskManagers'
// memory is set in full, as Flink's start scripts would pass it, and its JVM sizes
// (flinkTaskManagerJVM) follow from it. The restart strategy must be the cluster's: Flink
// (1.19) takes a DataSet job's, which every Beam batch job is, from the job's own
// ExecutionConfig (which Beam's Flink runner sets for streaming jobs only) or else from
// the cluster, never from the configuration the job was submitted with; ten attempts,
// as the failed tasks of one lost TaskManager may each count as one. A TaskManager whose
// connections fail is lost at once; the heartbeat timeout leaves a busy one on a loaded
// machine time to answer. Each job ships the job server's classpath to every TaskManager
// (Beam's Flink job server ignores files_to_stage); a TaskManager deletes a job's copy
// blob.service.cleanup.interval seconds after the job, an hour by default.
const flinkSessionConf = `jobmanager.rpc.address: 127.0.0.1
jobmanager.rpc.port: %d
jobmanager.bind-host: 127.0.0.1
rest.address: 127.0.0.1
rest.bind-address: 127.0.0.1
rest.port: %d
taskmanager.host: 127.0.0.1
taskmanager.bind-host: 127.0.0.1
taskmanager.numberOfTaskSlots: %d
taskmanager.cpu.cores: %d
taskmanager.memory.framework.heap.size: 64m
taskmanager.memory.task.heap.size: 256m
taskmanager.memory.managed.size: 256m
taskmanager.memory.framework.off-heap.size: 192m
taskmanager.memory.task.off-heap.size: 0m
taskmanager.memory.network.min: 256m
taskmanager.memory.network.max: 256m
taskmanager.memory.jvm-metaspace.size: 384m
taskmanager.memory.jvm-overhead.min: 192m
taskmanager.memory.jvm-overhead.max: 192m
cluster.evenly-spread-out-slots: true
classloader.check-leaked-classloader: false
heartbeat.interval: 1000
heartbeat.timeout: 30000
restart-strategy.type: fixed-delay
restart-strategy.fixed-delay.attempts: 10
restart-strategy.fixed-delay.delay: 1 s
blob.service.cleanup.interval: 5
`

// flinkOpens are the packages of java.base that Flink's start scripts open to Flink's
// JVMs on Java 17 (env.java.opts.all): without them a TaskManager cannot serialize a
// task's exception to the JobManager.
var flinkOpens = []string{"java.lang", "java.net", "java.io", "java.nio", "sun.nio.ch", "java.lang.reflect",
	"java.text", "java.time", "java.util", "java.util.concurrent", "java.util.concurrent.atomic", "java.util.concurrent.locks"}

// flinkJVM returns the flags of a session cluster's JVM: flinkOpens opened, and jvm.
func flinkJVM(jvm ...string) []string {
	out := append([]string{}, engineJVM...)
	for _, p := range flinkOpens {
		out = append(out, "--add-opens=java.base/"+p+"=ALL-UNNAMED")
	}
	return append(out, jvm...)
}

// flinkTaskManagerJVM sizes a TaskManager's JVM from flinkSessionConf: the heap is the
// framework and task heap, direct memory the off-heap and network memory, metaspace the
// metaspace (Flink's start scripts derive the same flags).
var flinkTaskManagerJVM = []string{"-Xms320m", "-Xmx320m", "-XX:MaxDirectMemorySize=448m", "-XX:MaxMetaspaceSize=384m"}

// flinkSessionEngine returns the session cluster the FlinkSession tests share; with last,
// it stops when t ends. If t fails, the cluster's logs are logged.
func flinkSessionEngine(t *testing.T, home string, last bool) *flinkSession {
	fs := sharedEngine(t, "flink-session", last, func(tb testing.TB) *flinkSession { return startFlinkSession(tb, home) })
	t.Cleanup(func() {
		if t.Failed() {
			for _, s := range fs.daemons {
				t.Logf("%s, last lines:\n%s", filepath.Base(s.logPath), lastLines(withoutClasspath(s.log(t)), 40))
			}
		}
	})
	return fs
}

// startFlinkSession starts a Flink session cluster of the classpath in home on loopback
// (a JobManager and flinkSessionTaskManagers TaskManagers, each a JVM in a process group
// of its own, killed when the test ends) and a job server submitting to it.
func startFlinkSession(t testing.TB, home string) *flinkSession {
	t.Helper()
	cp := flinkClasspath(t, home)
	conf := t.TempDir()
	jmTmp := t.TempDir()
	jm := startServer(t, "flink-jobmanager", "java", func(rest int) []string {
		c := fmt.Sprintf(flinkSessionConf, freePort(t), rest, flinkSessionSlots, flinkSessionSlots)
		require.NoError(t, os.WriteFile(filepath.Join(conf, "flink-conf.yaml"), []byte(c), 0o644))
		return append(flinkJVM("-Xmx512m", "-Djava.io.tmpdir="+jmTmp, "-cp", cp),
			"org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint", "--configDir", conf)
	})
	// The TaskManagers and the job server start side by side.
	var specs []serverSpec
	var tmpDirs []string
	for i := 0; i < flinkSessionTaskManagers; i++ {
		tmp := t.TempDir()
		tmpDirs = append(tmpDirs, tmp)
		specs = append(specs, serverSpec{"flink-taskmanager", "java", nil, func(rpc int) []string {
			return append(flinkJVM(append(flinkTaskManagerJVM, "-Djava.io.tmpdir="+tmp, "-cp", cp)...),
				"org.apache.flink.runtime.taskexecutor.TaskManagerRunner", "--configDir", conf,
				"-Dtaskmanager.rpc.port="+strconv.Itoa(rpc))
		}})
	}
	js := flinkJobServerSpec(t, home, jm.addr, false)
	servers := startServers(t, append(specs, js.spec)...)
	fs := &flinkSession{engine: js.engine(servers[len(servers)-1]), jobManager: jm, taskManagers: map[int]string{}, daemons: append([]*server{jm}, servers...)}
	fs.blobDirs = append(tmpDirs, jmTmp)
	for i, tm := range servers[:flinkSessionTaskManagers] {
		fs.taskManagers[tm.pid] = tmpDirs[i]
	}
	deadline := time.Now().Add(startTimeout)
	for n := 0; n < flinkSessionTaskManagers; n = registeredTaskManagers(jm.addr) {
		require.True(t, time.Now().Before(deadline), "the TaskManagers did not register with the JobManager:\n%s", lastLines(jm.log(t), 30))
		time.Sleep(200 * time.Millisecond)
	}
	return fs
}

// withoutClasspath drops the lines of a Flink log that list the classpath.
func withoutClasspath(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if !strings.Contains(l, "Classpath: ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// registeredTaskManagers returns how many TaskManagers the JobManager whose REST endpoint
// is addr lists (0 if it does not answer).
func registeredTaskManagers(addr string) int {
	res, err := http.Get("http://" + addr + "/taskmanagers")
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	var body struct {
		TaskManagers []json.RawMessage `json:"taskmanagers"`
	}
	if json.NewDecoder(res.Body).Decode(&body) != nil {
		return 0
	}
	return len(body.TaskManagers)
}

// parentPid returns the parent of process pid (0 if it is gone).
func parentPid(pid int) int {
	f := procStat(pid)
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
