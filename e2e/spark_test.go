package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSparkMatchesEmbedded runs the engine matrix on Beam's Spark job server against a
// standalone Spark cluster on loopback (a master and two workers of one core each, all
// separate JVMs), its SDK workers separate processes started by the Spark executors.
func TestSparkMatchesEmbedded(t *testing.T) {
	runEngineMatrix(t, sparkEngine(t, false))
}

// TestSparkFilesToStageMissing submits a job whose --files_to_stage names a file the
// job server's machine does not have: the job fails at once, naming the file, and the
// engine runs the next job.
func TestSparkFilesToStageMissing(t *testing.T) {
	// Not sparkEngine: its cleanup asks for executors, which this job never starts.
	home := engineHome(t, "spark")
	e := *sharedEngine(t, "spark", false, func(tb testing.TB) *engine { return startSpark(tb, home) })
	e.filesToStage = filepath.Join(t.TempDir(), "missing.jar")
	j := e.start(t, nil, "dedup", "--quiet", "--input", genCorpus(t, 200, 7), "--output", filepath.Join(t.TempDir(), "out"))
	start := time.Now()
	err, _ := j.exit()
	require.Error(t, err, "a job shipping a file that does not exist")
	assert.Less(t, time.Since(start), time.Minute, "the job did not fail at once")
	assert.Contains(t, j.stderr.String(), "To-be-staged file does not exist: '"+e.filesToStage+"'", "neardup's error")
}

// TestSparkWorkerLostSDKWorker kills one SDK worker of a Spark job while it runs: Spark
// retries the failed tasks on the other executor and every output, stats.json's counts
// included, equals the embedded run's.
func TestSparkWorkerLostSDKWorker(t *testing.T) {
	workerLost(t, sparkEngine(t, true))
}

// sparkEngine returns the Spark cluster and job server the Spark tests share; with last,
// they stop when t ends.
func sparkEngine(t *testing.T, last bool) *engine {
	home := engineHome(t, "spark")
	e := sharedEngine(t, "spark", last, func(tb testing.TB) *engine { return startSpark(tb, home) })
	t.Cleanup(func() { sparkDirsLeft(t, e.sparkLocal, e.sparkWork) })
	return e
}

// sparkJavaOptions opens the JDK internals Spark 3.2 reaches into, which Java 17 closes
// (Spark 3.3 and later pass these themselves).
var sparkJavaOptions = []string{
	"--add-opens=java.base/java.lang=ALL-UNNAMED",
	"--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
	"--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
	"--add-opens=java.base/java.io=ALL-UNNAMED",
	"--add-opens=java.base/java.net=ALL-UNNAMED",
	"--add-opens=java.base/java.nio=ALL-UNNAMED",
	"--add-opens=java.base/java.util=ALL-UNNAMED",
	"--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
	"--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
	"--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
	"--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
	"--add-opens=java.base/sun.security.action=ALL-UNNAMED",
	"--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
}

// sparkRecovery is the Spark configuration under which a job survives a lost SDK worker.
// An executor keeps a job's SDK worker environment while tasks use it
// (environment_cache_millis), a dead worker's included, so every retry of a task on that
// executor fails at once; excluded after its first failure, a task is retried on
// another executor, and an executor excluded for the job is killed and replaced, with
// new SDK workers.
var sparkRecovery = []string{"-Dspark.excludeOnFailure.enabled=true", "-Dspark.excludeOnFailure.killExcludedExecutors=true"}

// sparkWorkers is the number of Spark workers, of one core each.
const sparkWorkers = 2

// startSpark starts a standalone Spark cluster and the Spark job server of home (see
// .ci/engines.sh) submitting to it.
func startSpark(t testing.TB, home string) *engine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "classpath"))
	require.NoError(t, err)
	beamCP := strings.TrimSpace(string(b))
	sparkHome := filepath.Join(home, "spark")
	sparkCP := filepath.Join(sparkHome, "jars", "*")
	// Without SPARK_SCALA_VERSION a worker looks for a source tree's build directories
	// to find the Scala version, and cannot launch executors.
	env := []string{"SPARK_HOME=" + sparkHome, "SPARK_LOCAL_IP=127.0.0.1", "SPARK_SCALA_VERSION=2.12"}
	// Every Spark JVM's flags, the executors' included.
	sparkJVM := append(append([]string{}, engineJVM...), sparkJavaOptions...)
	java := func(jvm []string, cp string, main string, args ...string) []string {
		return append(append(append(append([]string{}, sparkJVM...), jvm...), "-cp", cp, main), args...)
	}

	master := startServerEnv(t, "spark-master", "java", env, func(port int) []string {
		return java([]string{"-Xmx256m"}, sparkCP, "org.apache.spark.deploy.master.Master",
			"--host", "127.0.0.1", "--port", strconv.Itoa(port), "--webui-port", "0")
	})
	masterURL := "spark://" + master.addr
	// Each worker's local directory (its executors' shuffle files and fetched classpath)
	// is a temporary directory of the test's: the workers are killed when the test ends
	// and never remove it, and Spark's default is /tmp.
	var local, work []string
	var specs []serverSpec
	for i := 0; i < sparkWorkers; i++ {
		local, work = append(local, t.TempDir()), append(work, t.TempDir())
		work := work[i]
		specs = append(specs, serverSpec{"spark-worker", "java", append(env, "SPARK_LOCAL_DIRS="+local[i]), func(port int) []string {
			return java([]string{"-Xmx256m"}, sparkCP, "org.apache.spark.deploy.worker.Worker",
				"--host", "127.0.0.1", "--port", strconv.Itoa(port), "--webui-port", "0",
				"--cores", "1", "--memory", "2g", "--work-dir", work, masterURL)
		}})
	}
	tmp := t.TempDir()
	artifacts := filepath.Join(tmp, "artifacts")
	specs = append(specs, serverSpec{"spark-job-server", "java", env, func(port int) []string {
		// Beam's jars come first (Spark's Guava 14 lacks what Beam calls), in the
		// executors too. The jobs share one Spark application (Beam's switch for tests), so
		// that its executors start once.
		jvm := append([]string{"-Xmx1g", "-Djava.io.tmpdir=" + tmp, "-Dbeam.spark.test.reuseSparkContext=true", "-Dspark.executor.extraClassPath=" + beamCP,
			"-Dspark.executor.extraJavaOptions=" + strings.Join(sparkJVM, " ")}, sparkRecovery...)
		return java(jvm, beamCP+":"+sparkCP, "org.apache.beam.runners.spark.SparkJobServerDriver",
			"--job-port="+strconv.Itoa(port), "--artifact-port=0", "--expansion-port=0",
			"--artifacts-dir="+artifacts, "--spark-master-url="+masterURL)
	}})
	servers := startServers(t, specs...) // the workers and the job server side by side
	deadline := time.Now().Add(startTimeout)
	for strings.Count(master.log(t), "Registering worker") < sparkWorkers {
		require.True(t, time.Now().Before(deadline), "Spark workers did not register with the master:\n%s", master.log(t))
		time.Sleep(200 * time.Millisecond)
	}
	return &engine{name: "spark", server: servers[len(servers)-1], artifacts: artifacts, sparkLocal: local, sparkWork: work,
		filesToStage: emptyJar(t, tmp)}
}

// sparkDirsLeft checks that the running executors' local directories
// (SPARK_EXECUTOR_DIRS, which their worker makes in its SPARK_LOCAL_DIRS) are under the
// workers' local dirs and nowhere else; one elsewhere is removed. An executor is a
// process whose working directory is under a worker's work directory.
func sparkDirsLeft(t *testing.T, local, work []string) {
	t.Helper()
	under := func(path string, roots []string) bool {
		for _, r := range roots {
			if strings.HasPrefix(path, r+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	var dirs []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		if cwd, err := os.Readlink(filepath.Join(p, "cwd")); err != nil || !under(cwd, work) {
			continue
		}
		env, _ := os.ReadFile(filepath.Join(p, "environ"))
		for _, kv := range strings.Split(string(env), "\x00") {
			if v, ok := strings.CutPrefix(kv, "SPARK_EXECUTOR_DIRS="); ok {
				dirs = append(dirs, filepath.SplitList(v)...)
			}
		}
	}
	if t.Failed() && len(dirs) == 0 {
		return // the cluster may not have run an executor
	}
	require.NotEmpty(t, dirs, "no executor runs in the work directories %v", work)
	for _, dir := range dirs {
		root := filepath.Dir(dir) // the worker's spark-*, which a killed worker leaves
		if !assert.True(t, under(dir, local), "an executor's local directory %s is outside the workers' SPARK_LOCAL_DIRS %v", dir, local) &&
			strings.HasPrefix(filepath.Base(dir), "executor-") && strings.HasPrefix(filepath.Base(root), "spark-") {
			_ = os.RemoveAll(root)
		}
	}
}
