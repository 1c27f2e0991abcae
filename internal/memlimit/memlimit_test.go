package memlimit

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]int64{
		"2GB": 2 << 30, "2G": 2 << 30, "2GiB": 2 << 30, "1500MiB": 1500 << 20, "512m": 512 << 20,
		"1.5GB": 3 << 29, "4096": 4096, "64KB": 64 << 10, "1T": 1 << 40,
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "GB", "-1G", "0", "two gigs", "2XB"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestParseBudgetRefusesTooSmall(t *testing.T) {
	for _, small := range []string{"1B", "1", "64MB", "255MiB"} {
		_, err := ParseBudget(small)
		if err == nil || !strings.Contains(err.Error(), "below the minimum of 256 MiB") {
			t.Errorf("ParseBudget(%q) = %v; want the minimum named", small, err)
		}
	}
	if b, err := ParseBudget("256MB"); err != nil || b != MinBudget {
		t.Errorf("ParseBudget(256MB) = %d, %v", b, err)
	}
	if _, err := ParseBudget("two gigs"); err == nil {
		t.Error("ParseBudget accepted a bad size")
	}
}

func TestMemTotal(t *testing.T) {
	p := filepath.Join(t.TempDir(), "meminfo")
	os.WriteFile(p, []byte("MemFree:  100 kB\nMemTotal:       24576000 kB\n"), 0o644)
	if got := memTotal(p); got != 24576000<<10 {
		t.Fatalf("memTotal = %d", got)
	}
	if got := memTotal(filepath.Join(t.TempDir(), "none")); got != 0 {
		t.Fatalf("missing file gave %d", got)
	}
}

// An explicit budget is the process's: the runtime's limit is the budget less the
// executable's resident pages (this test binary's are some megabytes); without one the
// default is a share of the machine's memory, which exists on the Linux machines neardup
// runs on.
func TestApply(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer budget.Store(0)
	file := fileResident("/proc/self/statm")
	if file <= 0 {
		t.Fatalf("no file-backed resident pages read from /proc/self/statm")
	}
	if got, l := Apply(3<<30), debug.SetMemoryLimit(-1); got != 3<<30 || l >= 3<<30 || l < 3<<30-2*file {
		t.Fatalf("Apply(3GiB) = %d, limit %d with %d file-backed bytes resident", got, l, file)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT set in the environment")
	}
	m := Machine()
	if m <= 0 {
		t.Skip("machine memory unknown here")
	}
	if got, l := Apply(0), debug.SetMemoryLimit(-1); got != int64(DefaultShare*float64(m)) || l >= got || l < got/2 {
		t.Fatalf("Apply(0) = %d, limit %d with machine %d", got, l, m)
	}
}

// The tracker moves the runtime's limit when the budget does, without a new Apply.
func TestTrackerFollowsBudget(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer budget.Store(0)
	Apply(2 << 30)
	budget.Store(1 << 30)
	deadline := time.Now().Add(100 * TrackEvery)
	for debug.SetMemoryLimit(-1) >= 1<<30 {
		if time.Now().After(deadline) {
			t.Fatalf("limit %d still above the 1 GiB budget", debug.SetMemoryLimit(-1))
		}
		time.Sleep(TrackEvery / 4)
	}
}

func TestHeapLimit(t *testing.T) {
	for _, c := range []struct{ budget, file, want int64 }{
		{512 << 20, 126 << 20, 386 << 20},
		{512 << 20, 0, 512 << 20},
		{512 << 20, -1, 512 << 20},
		{512 << 20, 400 << 20, 256 << 20}, // no less than half the budget
	} {
		if got := HeapLimit(c.budget, c.file); got != c.want {
			t.Errorf("HeapLimit(%d, %d) = %d, want %d", c.budget, c.file, got, c.want)
		}
	}
}

func TestFileResident(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "statm")
	os.WriteFile(p, []byte("170000 160000 32256 16000 0 130000 0\n"), 0o644)
	if got, want := fileResident(p), int64(32256*os.Getpagesize()); got != want {
		t.Errorf("fileResident = %d, want %d", got, want)
	}
	for _, bad := range []string{"", "1 2\n", "1 2 x 4\n"} {
		os.WriteFile(p, []byte(bad), 0o644)
		if got := fileResident(p); got != 0 {
			t.Errorf("fileResident of %q = %d, want 0", bad, got)
		}
	}
	if got := fileResident(filepath.Join(dir, "none")); got != 0 {
		t.Errorf("missing file gave %d", got)
	}
}
