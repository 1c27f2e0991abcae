package memlimit

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The budget is the process's resident memory, what --memory promises and peak RSS
// measures, while the runtime's limit governs only the memory Go allocates itself. The
// pages of the executable and of mapped files are resident too: a Beam binary's code and
// read-only data grow to a hundred megabytes or more as the run touches them. So the
// runtime's limit is the budget less those pages, read again every TrackEvery.

// TrackEvery is how often the file-backed resident pages are read again.
const TrackEvery = 100 * time.Millisecond

// budget is the resident memory the runtime's limit is fitted to; 0 when none is tracked
// (a GOMEMLIMIT from the environment is the runtime's own and is left as given).
var budget atomic.Int64

var startTracking sync.Once

// track fits the runtime's limit to the budget, starting the tracker the first time.
func track(b int64) {
	budget.Store(b)
	fit()
	startTracking.Do(func() {
		go func() {
			for range time.Tick(TrackEvery) {
				fit()
			}
		}()
	})
}

// fit sets the runtime's limit to HeapLimit of the budget and the file-backed pages now
// resident, when that moved by a mebibyte or more.
func fit() {
	b := budget.Load()
	if b <= 0 {
		return
	}
	l := HeapLimit(b, fileResident("/proc/self/statm"))
	if cur := debug.SetMemoryLimit(-1); cur-l >= 1<<20 || l-cur >= 1<<20 {
		debug.SetMemoryLimit(l)
	}
}

// HeapLimit is the runtime's limit that keeps a process with file bytes of file-backed
// resident pages within budget: budget less file, but no less than half the budget, so
// that a large executable under a small budget leaves the collector a heap to work in.
func HeapLimit(budget, file int64) int64 {
	return max(budget-max(file, 0), budget/2)
}

// fileResident is the file-backed and shared resident memory of the process in bytes,
// from the "shared" field of statm; 0 when it cannot be read (not Linux).
func fileResident(statm string) int64 {
	b, err := os.ReadFile(statm)
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return 0
	}
	pages, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || pages < 0 {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
