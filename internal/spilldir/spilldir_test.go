package spilldir

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMain makes the test binary a run that holds a spill directory until it is killed,
// when NEARDUP_SPILLDIR_HOLD names the parent.
func TestMain(m *testing.M) {
	if parent := os.Getenv("NEARDUP_SPILLDIR_HOLD"); parent != "" {
		d, err := Make(parent)
		if err != nil {
			os.Exit(3)
		}
		os.WriteFile(filepath.Join(d.Path, "spill-0"), make([]byte, 1<<16), 0o644)
		os.Stdout.WriteString(d.Path + "\n")
		for { // until killed; a bare select{} may be taken for a deadlock and end the run
			time.Sleep(time.Hour)
		}
	}
	os.Exit(m.Run())
}

// holdInChild starts a process that makes a spill directory under parent and waits; it
// returns the process and the directory.
func holdInChild(t *testing.T, parent string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "NEARDUP_SPILLDIR_HOLD="+parent)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	return cmd, line[:len(line)-1]
}

// TestSweepRemovesOnlyDirectoriesOfDeadRuns: a run killed with SIGKILL leaves its
// directory; Sweep removes it, and leaves a live run's (another process's and this
// one's) and anything not named like a spill directory.
func TestSweepRemovesOnlyDirectoriesOfDeadRuns(t *testing.T) {
	parent := t.TempDir()
	killed, dead := holdInChild(t, parent)
	_, alive := holdInChild(t, parent)
	mine, err := Make(parent)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(parent, "other-files")
	if err := os.Mkdir(other, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := killed.Process.Kill(); err != nil { // SIGKILL: no cleanup runs
		t.Fatal(err)
	}
	killed.Wait()
	if _, err := os.Stat(filepath.Join(dead, "spill-0")); err != nil {
		t.Fatalf("the killed run's spill file should still be there before Sweep: %v", err)
	}
	removed, err := Sweep(parent)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, []string{dead}) {
		t.Fatalf("Sweep removed %v, want only the killed run's %s", removed, dead)
	}
	for _, d := range []string{alive, mine.Path, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s should be left: %v", d, err)
		}
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("%s should be gone: %v", dead, err)
	}
	if err := mine.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine.Path); !os.IsNotExist(err) {
		t.Errorf("Release left %s: %v", mine.Path, err)
	}
}

// TestFreeIsStatfs: Free reports the same figure as df's available column would, within
// what other writers change meanwhile, and fails on a missing directory.
func TestFreeIsStatfs(t *testing.T) {
	dir := t.TempDir()
	free, err := Free(dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("df", "--output=avail", "-B1", dir).Output()
	if err != nil {
		t.Skipf("df: %v", err)
	}
	var df uint64
	for _, line := range slices.Backward(splitLines(string(out))) {
		if _, err := fmtSscan(line, &df); err == nil {
			break
		}
	}
	diff := int64(free) - int64(df)
	if diff < 0 {
		diff = -diff
	}
	if df == 0 || diff > 1<<30 {
		t.Fatalf("Free = %d, df says %d", free, df)
	}
	if _, err := Free(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("Free of a missing directory should fail")
	}
}

func splitLines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }

func fmtSscan(s string, v *uint64) (int, error) { return fmt.Sscan(strings.TrimSpace(s), v) }
