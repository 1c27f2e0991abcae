package memlimit

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
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

// An explicit budget becomes the runtime's limit; without one the default is a share
// of the machine's memory, which exists on the Linux machines neardup runs on.
func TestApply(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	if got := Apply(3 << 30); got != 3<<30 || debug.SetMemoryLimit(-1) != 3<<30 {
		t.Fatalf("Apply(3GiB) = %d, limit %d", got, debug.SetMemoryLimit(-1))
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT set in the environment")
	}
	m := Machine()
	if m <= 0 {
		t.Skip("machine memory unknown here")
	}
	if got := Apply(0); got != int64(DefaultShare*float64(m)) || debug.SetMemoryLimit(-1) != got {
		t.Fatalf("Apply(0) = %d with machine %d", got, m)
	}
}
