package e2e

// TestEnginesDoc runs the commands of docs/engines.md as written. The convention, for
// whoever adds a section there:
//
// A command block the test runs is a fenced block whose info string is
//
//	```bash engines-doc GROUP KIND [wait=VAR]
//
// Blocks of one GROUP run in the order of the page, as the subtest TestEnginesDoc/GROUP,
// each in its own `bash -euo pipefail` from the repository root, after the blocks of the
// group "all" (which are run first for every group); the groups run side by side, each
// with ports and directories of its own (the placeholders). A new group (a new section,
// say "flink-session") is picked up without a change here; the groups "flink" and "spark"
// must be there. KIND is one of:
//
//   - vars: placeholders, one `NAME=VALUE` a line (a `# comment` may follow). The test
//     replaces each VALUE with its own (docPlaceholders: a temporary directory, a free
//     port, the built binary); a placeholder it has no value for fails the test.
//   - env: lines that set variables for the blocks after them (run with `set -a`, so
//     every variable is exported; the environment they leave is what later blocks get).
//   - start: a process that runs until the group ends (a job server, a cluster daemon),
//     started in the background in its own process group, killed with it at the end;
//     with wait=VAR the test waits until 127.0.0.1:$VAR accepts connections.
//   - run: a command that must exit 0 (a corpus generated, a job submitted).
//
// When a group's blocks have run, every directory under $SCRATCH/out other than
// $SCRATCH/out/embedded (the page's embedded run) must hold the same files as that one,
// byte for byte (stats.json without its timings; report.html only present). A group
// that writes no such directory fails.

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// enginesDoc is the page TestEnginesDoc runs, relative to the repository root.
const enginesDoc = "docs/engines.md"

// docStartTimeout bounds how long a start block's daemon may take to open its port: a
// Spark job server loads its whole classpath first, which takes over a minute on a
// loaded machine.
const docStartTimeout = 3 * time.Minute

// docBlock is one command block of the page.
type docBlock struct {
	line        int // of the opening fence, for messages
	group, kind string
	wait        string // the placeholder naming the port a start block listens on
	body        string
}

var docFence = regexp.MustCompile("^```bash engines-doc(?: (.*))?$")

// docBlocks returns the page's command blocks, by group.
func docBlocks(t *testing.T, path string) map[string][]docBlock {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	groups := map[string][]docBlock{}
	var cur *docBlock
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if cur != nil {
			if strings.TrimSpace(line) == "```" {
				groups[cur.group] = append(groups[cur.group], *cur)
				cur = nil
			} else {
				cur.body += line + "\n"
			}
			continue
		}
		m := docFence.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		fields := strings.Fields(m[1])
		require.GreaterOrEqual(t, len(fields), 2, "%s:%d: want ```bash engines-doc GROUP KIND [wait=VAR]", path, n)
		b := docBlock{line: n, group: fields[0], kind: fields[1]}
		require.Contains(t, []string{"vars", "env", "start", "run"}, b.kind, "%s:%d: block kind", path, n)
		for _, a := range fields[2:] {
			v, ok := strings.CutPrefix(a, "wait=")
			require.True(t, ok && b.kind == "start", "%s:%d: %q: only a start block takes wait=VAR", path, n, a)
			b.wait = v
		}
		cur = &b
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "%s: a command block is not closed", path)
	return groups
}

// TestEnginesDoc runs the command blocks of docs/engines.md, one subtest per group, as
// the convention at the top of this file says.
func TestEnginesDoc(t *testing.T) {
	root := repoRoot(t)
	groups := docBlocks(t, filepath.Join(root, enginesDoc))
	require.NotEmpty(t, groups["all"], "%s has no block of the group all (the placeholders, the corpus, the embedded run)", enginesDoc)
	for _, g := range []string{"flink", "spark"} {
		require.NotEmpty(t, groups[g], "%s has no command block of the group %s", enginesDoc, g)
	}
	for g, blocks := range groups {
		if g == "all" {
			continue
		}
		t.Run(g, func(t *testing.T) {
			// The groups' daemons start and run side by side.
			t.Parallel()
			engineHome(t, strings.SplitN(g, "-", 2)[0]) // skips without Java; fetches the classpath
			runDocGroup(t, append(append([]docBlock{}, groups["all"]...), blocks...))
		})
	}
}

// docPlaceholders returns the test's value for every placeholder the page may define.
func docPlaceholders(t *testing.T) map[string]string {
	return map[string]string{
		"NEARDUP":     filepath.Join(binaries(t), "neardup"),
		"SCRATCH":     t.TempDir(),
		"JOB_PORT":    strconv.Itoa(freePort(t)),
		"MASTER_PORT": strconv.Itoa(freePort(t)),
	}
}

var docAssignment = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=\S*(\s+#.*)?$`)

// runDocGroup runs blocks as the convention above says and compares the outputs.
func runDocGroup(t *testing.T, blocks []docBlock) {
	root := repoRoot(t)
	values := docPlaceholders(t)
	env := os.Environ()
	for _, b := range blocks {
		where := fmt.Sprintf("%s:%d (%s %s)", enginesDoc, b.line, b.group, b.kind)
		script := b.body
		if b.kind == "vars" {
			script = ""
			for _, line := range strings.Split(strings.TrimSpace(b.body), "\n") {
				m := docAssignment.FindStringSubmatch(strings.TrimSpace(line))
				require.NotNil(t, m, "%s: %q is not NAME=VALUE", where, line)
				v, ok := values[m[1]]
				require.True(t, ok, "%s: placeholder %s has no value in the test (docPlaceholders)", where, m[1])
				script += m[1] + "=" + strconv.Quote(v) + "\n"
			}
		}
		switch b.kind {
		case "vars", "env":
			envFile := filepath.Join(t.TempDir(), "env")
			out, err := docShell(root, env, "set -a\n"+script+"env -0 >"+strconv.Quote(envFile)+"\n").CombinedOutput()
			require.NoError(t, err, "%s:\n%s\n%s", where, b.body, out)
			b, err := os.ReadFile(envFile)
			require.NoError(t, err)
			env = strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
		case "start":
			docStart(t, root, env, where, b)
		case "run":
			cmd := docShell(root, env, script)
			timer := time.AfterFunc(engineRunTimeout, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
			out, err := cmd.CombinedOutput()
			timer.Stop()
			require.NoError(t, err, "%s:\n%s\n%s", where, b.body, lastLines(string(out), 40))
		}
	}
	out := filepath.Join(values["SCRATCH"], "out")
	want := readTree(t, filepath.Join(out, "embedded"))
	require.NotEmpty(t, want, "the page's embedded run wrote nothing to $SCRATCH/out/embedded")
	dirs, err := os.ReadDir(out)
	require.NoError(t, err)
	compared := 0
	for _, d := range dirs {
		if d.Name() == "embedded" {
			continue
		}
		t.Logf("comparing $SCRATCH/out/%s with $SCRATCH/out/embedded", d.Name())
		assertSameFiles(t, want, readTree(t, filepath.Join(out, d.Name())))
		compared++
	}
	require.NotZero(t, compared, "the group's blocks wrote no output under $SCRATCH/out to compare with the embedded run's")
}

// docShell returns `bash -euo pipefail -c script` in dir with env, in a process group
// of its own.
func docShell(dir string, env []string, script string) *exec.Cmd {
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// docStart starts a start block and, with wait=VAR, waits for its port; its process group
// (the daemon and what it starts: executors, SDK workers) is killed when the test ends.
func docStart(t *testing.T, root string, env []string, where string, b docBlock) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "log")
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	cmd := docShell(root, env, b.body)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	require.NoError(t, cmd.Start(), where)
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	if b.wait == "" {
		return
	}
	port := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, b.wait+"="); ok {
			port = v
		}
	}
	require.NotEmpty(t, port, "%s: wait=%s names no variable set by the blocks before it", where, b.wait)
	if err := waitAcceptingWithin("127.0.0.1:"+port, exited, docStartTimeout); err != nil {
		log, _ := os.ReadFile(logPath)
		t.Fatalf("%s: %v\n%s\nits output, last lines:\n%s", where, err, b.body, lastLines(string(log), 40))
	}
}
