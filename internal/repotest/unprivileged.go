package repotest

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// unprivilegedEnv carries Unprivileged's argument to the child process.
const unprivilegedEnv = "NEARDUP_TEST_UNPRIVILEGED_ARG"

// nobody is the conventional uid and gid of the unprivileged user.
const nobody = 65534

// Unprivileged lets a test about denied permissions run as root too, whose reads no file
// mode denies. setup prepares what the test reads and returns its name (a path under
// PublicTempDir, which nobody can reach). Unprivileged returns (that name, true) in the
// process that is to do the test's checks: this one when it is not root; else a child
// running this test alone as the user nobody, which gets the name through the
// environment without running setup. The root parent runs that child, fails the test
// when the child fails, and returns ("", false).
func Unprivileged(t *testing.T, setup func() string) (string, bool) {
	t.Helper()
	if v, ok := os.LookupEnv(unprivilegedEnv); ok {
		return v, true
	}
	arg := setup()
	if os.Geteuid() != 0 {
		return arg, true
	}
	// The test binary sits in a directory only root may enter: nobody runs a copy.
	bin := filepath.Join(PublicTempDir(t), "test.bin")
	if err := copyFile(os.Args[0], bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), unprivilegedEnv+"="+arg)
	cmd.Dir = filepath.Dir(bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the test as the user nobody: %v\n%s", err, out)
	}
	t.Logf("ran as the user nobody:\n%s", out)
	return "", false
}

// PublicTempDir is a temporary directory that every user may enter and read, removed
// when the test ends (t.TempDir's parent is root's alone).
func PublicTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "neardup-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyFile(from, to string, mode os.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
