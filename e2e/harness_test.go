package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The packages built for the tests, and the names `go build -o DIR/` gives their binaries.
var mainPackages = []string{
	"github.com/neardup/neardup/cmd/neardup",
	"github.com/apache/beam/sdks/v2/go/cmd/prism",
	"github.com/fsouza/fake-gcs-server",
}

// outputNames are the files a dedup run over JSONL input commits to --output.
var outputNames = []string{"clusters.jsonl", "kept.jsonl", "rejected.jsonl", "removed.jsonl", "report.html", "similarities.json", "stats.json"}

const (
	// runTimeout bounds one neardup run; the corpora here take seconds.
	runTimeout = 3 * time.Minute
	// engineRunTimeout bounds one job on Flink or Spark: a job of many stages on a
	// two-worker engine takes a minute or two on a loaded machine.
	engineRunTimeout = 6 * time.Minute
	// startTimeout bounds how long a server may take to accept connections.
	startTimeout = 30 * time.Second
)

var (
	binDir    string // created by TestMain, removed after the tests
	buildOnce sync.Once
	buildErr  error
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "neardup-e2e-bin-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: create binary directory: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	defer stopAllShared()
	return m.Run()
}

// rewriteBinaries replaces each file in dir by a copy of itself written with write(2):
// a binary as the linker wrote it maps more of its own pages into the processes that run
// it (tens of MB of peak RSS more, as its page cache is held in larger pieces), which the
// tests that bound a run's peak RSS would count against it.
func rewriteBinaries(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if err := copyInPieces(path, path+".copy"); err != nil {
			return err
		}
		if err := os.Rename(path+".copy", path); err != nil {
			return err
		}
	}
	return nil
}

// copyInPieces copies the file src to a new executable dst 128 KiB at a time, as cp
// does: one large write puts the copy's page cache in large pieces again.
func copyInPieces(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	// The wrappers hide ReadFrom and WriteTo, which would copy in the kernel instead.
	_, err = io.CopyBuffer(struct{ io.Writer }{out}, struct{ io.Reader }{in}, make([]byte, 128<<10))
	return errors.Join(err, out.Close())
}

// binaries builds neardup, prism and fake-gcs-server once for the whole package (one `go
// build` invocation, so shared dependencies compile once) and returns the directory
// holding them. Under -short the calling test is skipped.
func binaries(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: skipped under -short (builds neardup, the Prism job server and fake-gcs-server and runs them as separate processes)")
	}
	buildOnce.Do(func() {
		// Without the symbol table and DWARF: engines copy the worker binary for every SDK
		// worker they start (Spark starts one per stage), and a third of its bytes are
		// debug data. Stack traces keep their function names and lines.
		args := append([]string{"build", "-ldflags=-s -w", "-o", binDir + string(filepath.Separator)}, mainPackages...)
		cmd := exec.Command("go", args...)
		if cmd.Dir, buildErr = findRepoRoot(); buildErr != nil {
			return
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
			return
		}
		buildErr = rewriteBinaries(binDir)
	})
	require.NoError(t, buildErr)
	return binDir
}

// repoRoot finds the directory holding go.mod: neardup runs there, so that relative input
// paths such as testdata/seed.jsonl appear in its outputs exactly as given.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := findRepoRoot()
	require.NoError(t, err)
	return dir
}

func findRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find repository root: no go.mod above the test's directory")
		}
		dir = parent
	}
}

// server is a process started by startServer, in a process group of its own (with the
// processes it starts, such as an engine's SDK workers); the group is killed when the
// test ends.
type server struct {
	addr    string // 127.0.0.1:PORT
	logPath string
	pid     int // the server's, and its process group's
}

// log returns what the server has written so far (stdout and stderr).
func (s *server) log(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(s.logPath)
	require.NoError(t, err)
	return string(b)
}

// startServer starts bin with args(port) on a free loopback port and waits until the port
// accepts connections. Picking a free port and binding it are not atomic, so a server that
// exits before it accepts (another process took the port) is retried on a new port.
func startServer(t testing.TB, name, bin string, args func(port int) []string) *server {
	t.Helper()
	return startServerEnv(t, name, bin, nil, args)
}

// startServerEnv is startServer with env added to the server's environment.
func startServerEnv(t testing.TB, name, bin string, env []string, args func(port int) []string) *server {
	t.Helper()
	return startServers(t, serverSpec{name, bin, env, args})[0]
}

// serverSpec is a server for startServers: bin run with args(port) and env added to the
// test's environment.
type serverSpec struct {
	name, bin string
	env       []string
	args      func(port int) []string
}

// startServers starts the servers at once and waits until each accepts connections, as
// startServer does: JVMs that start side by side start sooner than one after another.
func startServers(t testing.TB, specs ...serverSpec) []*server {
	t.Helper()
	servers := make([]*server, len(specs))
	exited := make([]chan struct{}, len(specs))
	for i := range specs {
		servers[i], exited[i] = launchServer(t, specs[i])
	}
	started := make([]bool, len(specs))
	for attempt := 1; ; attempt++ {
		var errs []error
		for i, s := range servers {
			if started[i] {
				continue
			}
			if err := waitAccepting(s.addr, exited[i]); err != nil {
				errs = append(errs, fmt.Errorf("%s at %s: %w\n%s", specs[i].name, s.addr, err, s.log(t)))
				continue
			}
			started[i] = true
		}
		if len(errs) == 0 {
			return servers
		}
		require.Less(t, attempt, 3, "%v", errors.Join(errs...))
		for i := range specs {
			if !started[i] {
				servers[i], exited[i] = launchServer(t, specs[i])
			}
		}
	}
}

// launchServer starts spec on a free port, in a process group of its own killed when the
// test ends, and returns it and a channel closed when it exits.
func launchServer(t testing.TB, spec serverSpec) (*server, chan struct{}) {
	t.Helper()
	port := freePort(t)
	logPath := filepath.Join(t.TempDir(), spec.name+".log")
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	cmd := exec.Command(spec.bin, spec.args(port)...)
	if spec.env != nil {
		cmd.Env = append(os.Environ(), spec.env...)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start(), "start %s", spec.name)
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		logFile.Close()
		close(exited)
	}()
	t.Cleanup(func() {
		// Kill only the process group this test started, then reap its leader.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	return &server{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), logPath: logPath, pid: cmd.Process.Pid}, exited
}

func waitAccepting(addr string, exited <-chan struct{}) error {
	return waitAcceptingWithin(addr, exited, startTimeout)
}

// waitAcceptingWithin waits up to timeout for addr to accept a connection, and fails
// early if exited is closed first.
func waitAcceptingWithin(addr string, exited <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("exited before accepting connections")
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("not accepting connections after %v", timeout)
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// neardup runs the built binary in the repository root with args and returns its stdout
// and stderr. env entries are added to the test's environment, from which
// STORAGE_EMULATOR_HOST is removed so that only the gs:// test talks to an emulator.
// TMPDIR points into the test's temporary directory: the universal runner leaves a
// placeholder worker file in the temp directory on every LOOPBACK run.
func neardup(t *testing.T, env []string, args ...string) (string, string) {
	t.Helper()
	return neardupWithin(t, runTimeout, env, args...)
}

// neardupWithin is neardup with a bound of its own on the run.
func neardupWithin(t *testing.T, timeout time.Duration, env []string, args ...string) (string, string) {
	t.Helper()
	stdout, stderr, err := execNeardup(t, timeout, env, args...)
	require.NoError(t, err, "neardup %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), stdout, stderr)
	return stdout, stderr
}

// execNeardup runs the built binary as neardup does, and returns the run's error (a
// non-zero exit, or the timeout) instead of failing the test.
func execNeardup(t *testing.T, timeout time.Duration, env []string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "neardup"), args...)
	cmd.Dir = repoRoot(t)
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = neardupEnv(t.TempDir(), env)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("no result after %v: %w", timeout, err)
	}
	return out.String(), errOut.String(), err
}

// neardupEnv returns the environment neardup runs in: the test's, with TMPDIR set to
// tmp, without STORAGE_EMULATOR_HOST, and with env added.
func neardupEnv(tmp string, env []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "STORAGE_EMULATOR_HOST=") && !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	return append(append(out, "TMPDIR="+tmp), env...)
}

// readLocalOutputs reads every file of a local --output directory and checks that the
// directory holds exactly the committed outputs (no leftover .neardup-tmp-* directory).
func readLocalOutputs(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string][]byte{}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out[e.Name()] = b
	}
	sort.Strings(names)
	require.Equal(t, outputNames, names, "files in %s", dir)
	return out
}

func statsWithoutTimings(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var st map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // compare numbers as written, not as rounded float64s
	require.NoError(t, dec.Decode(&st), "stats.json: %s", b)
	timings, ok := st["timings"].(map[string]any)
	require.True(t, ok, "stats.json has no timings object: %s", b)
	require.Contains(t, timings, "total_time")
	delete(st, "timings")
	delete(st, "resources") // peak RSS and spilled bytes vary as timings do
	return st
}

// jsonLines decodes a JSONL output into one map per line.
func jsonLines(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), "line %q", line)
		out = append(out, m)
	}
	return out
}

// assertSeedResult checks the seed article's expected outcome, which comes from the
// article and not from neardup: D1, D2 and D3 kept (their input lines, unchanged), D4
// removed as an exact duplicate of D1 after lower-casing, one cluster {D1, D4}.
func assertSeedResult(t *testing.T, out map[string][]byte) {
	t.Helper()
	input, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "seed.jsonl"))
	require.NoError(t, err)
	lines := strings.SplitAfter(string(input), "\n")
	require.GreaterOrEqual(t, len(lines), 4)
	assert.Equal(t, lines[0]+lines[1]+lines[2], string(out["kept.jsonl"]), "kept.jsonl")

	removed := jsonLines(t, out["removed.jsonl"])
	require.Len(t, removed, 1, "removed.jsonl: %s", out["removed.jsonl"])
	assert.Equal(t, "D4", removed[0]["id"])
	assert.Equal(t, "D1", removed[0]["cluster"])
	assert.Equal(t, 1.0, removed[0]["similarity"])

	clusters := jsonLines(t, out["clusters.jsonl"])
	require.Len(t, clusters, 1, "clusters.jsonl: %s", out["clusters.jsonl"])
	assert.Equal(t, "D1", clusters[0]["cluster"])
	assert.Equal(t, "D1", clusters[0]["kept"])
	assert.Equal(t, []any{"D1", "D4"}, clusters[0]["members"])
	assert.Empty(t, out["rejected.jsonl"])
}
