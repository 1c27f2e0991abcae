// Package memlimit sets the Go runtime's soft memory limit (debug.SetMemoryLimit) from a
// memory budget for the process's resident memory: neardup's --memory flag or, by
// default, a share of what the machine (or its container) has. With the default GOGC the heap may grow to twice the live data
// before a collection, and the embedded runner's buffers come and go in bursts; a limit
// makes the collector work harder exactly when memory runs short instead of letting the
// process be killed.
package memlimit

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// DefaultShare of the machine's memory is the budget when none is given: the rest is
// left to the page cache, which the input files are read through, and to other processes.
const DefaultShare = 0.75

// Parse reads a size such as "2GB", "1500MiB", "512M" or "3221225472" (bytes). K, M, G
// and T are powers of 1024, with or without "B"/"iB".
func Parse(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := int64(1)
	if n := len(t); n > 0 {
		if i := strings.IndexByte("KMGT", t[n-1]); i >= 0 {
			mult = 1 << (10 * (i + 1))
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("memory size %q: want a positive size such as 2GB or 1500MiB", s)
	}
	return int64(v * float64(mult)), nil
}

// MinBudget is the smallest budget ParseBudget accepts: the executable's code and data
// alone are about 125 MiB resident once a job has run, so a smaller budget could never
// be kept and would only make the collector run without end.
const MinBudget = 256 << 20

// ParseBudget is Parse for a memory budget: a size below MinBudget is an error saying so.
func ParseBudget(s string) (int64, error) {
	b, err := Parse(s)
	if err != nil {
		return 0, err
	}
	if b < MinBudget {
		return 0, fmt.Errorf("memory budget %q is below the minimum of %d MiB: neardup's code alone is about 125 MiB resident", s, MinBudget>>20)
	}
	return b, nil
}

// Machine is the memory this process may use: the machine's total memory, or the
// container's cgroup limit when that is lower; 0 when neither can be read.
func Machine() int64 {
	total := memTotal("/proc/meminfo")
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(f); err == nil {
			if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && (total == 0 || v < total) {
				total = v
			}
		}
	}
	return total
}

func memTotal(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// Apply makes budget bytes, or DefaultShare of Machine() when budget is 0, the limit of
// the process's resident memory: the runtime's soft memory limit is kept at the budget
// less the file-backed pages resident (HeapLimit). A GOMEMLIMIT set in the environment
// wins over the default (not over an explicit budget) and is the runtime's limit as
// given. It returns the budget in force, 0 if none was set.
func Apply(budget int64) int64 {
	if budget <= 0 {
		if os.Getenv("GOMEMLIMIT") != "" {
			return debug.SetMemoryLimit(-1)
		}
		budget = int64(DefaultShare * float64(Machine()))
		if budget <= 0 {
			return 0
		}
	}
	track(budget)
	return budget
}
