package tmpdir

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestRunGivesATempDirAndRemovesIt(t *testing.T) {
	outer := t.TempDir()
	t.Setenv("TMPDIR", outer)
	inner, err := Run(func() (string, error) {
		dir := os.TempDir()
		f, err := os.CreateTemp("", "stray-*") // what Beam leaves behind
		if err == nil {
			f.Close()
		}
		return dir, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(inner) != outer {
		t.Errorf("fn ran with TMPDIR %s, want a new directory in %s", inner, outer)
	}
	if _, err := os.Stat(inner); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", inner, err)
	}
	if got := os.Getenv("TMPDIR"); got != outer {
		t.Errorf("TMPDIR is %q after Run, want %q", got, outer)
	}
}

// A Run inside a Run keeps the outer directory (a TestMain's around its tests' jobs).
func TestRunNested(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	outer, _ := Run(func() (string, error) {
		inner, _ := Run(func() (string, error) { return os.TempDir(), nil })
		if inner != os.TempDir() {
			t.Errorf("nested Run moved TMPDIR to %s", inner)
		}
		if _, err := os.Stat(inner); err != nil {
			t.Errorf("the outer directory is gone after a nested Run: %v", err)
		}
		return inner, nil
	})
	if _, err := os.Stat(outer); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", outer, err)
	}
}

// A Run inside a Run whose caller has set TMPDIR elsewhere (a test of a job's temp files)
// gets a directory of its own there.
func TestRunNestedAfterTMPDIRChanged(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	Run(func() (string, error) {
		mine := t.TempDir()
		os.Setenv("TMPDIR", mine)
		inner, _ := Run(func() (string, error) { return os.TempDir(), nil })
		if filepath.Dir(inner) != mine {
			t.Errorf("nested Run used %s, want a directory in %s", inner, mine)
		}
		if got := os.Getenv("TMPDIR"); got != mine {
			t.Errorf("TMPDIR is %q after the nested Run, want %q", got, mine)
		}
		return "", nil
	})
}

// Run removes the directories of earlier Runs whose process is gone (a SIGKILL runs no
// defers), and leaves those of running processes and names without a pid.
func TestRunRemovesDirectoriesOfDeadProcesses(t *testing.T) {
	outer := t.TempDir()
	t.Setenv("TMPDIR", outer)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	dead := filepath.Join(outer, fmt.Sprintf("neardup-job-%d-123", gone.Process.Pid))
	running := filepath.Join(outer, fmt.Sprintf("neardup-job-%d-456", live.Process.Pid))
	noPid := filepath.Join(outer, "neardup-job-789")
	other := filepath.Join(outer, "other-1-2")
	for _, d := range []string{dead, running, noPid, other} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Run(func() (int, error) { return 0, nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("%s, whose process is gone, is still there: %v", dead, err)
	}
	for _, d := range []string{running, noPid, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
}
