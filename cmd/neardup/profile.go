package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

// stopProfile is run before an error exit, since os.Exit skips deferred calls.
var stopProfile = func() {}

// startCPUProfile writes a CPU profile to path (NEARDUP_CPUPROFILE) until stop is called:
// the measurements in BENCHMARKS.md name where the time goes with it.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("NEARDUP_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("NEARDUP_CPUPROFILE: %w", err)
	}
	stopProfile = func() {
		pprof.StopCPUProfile()
		f.Close()
	}
	return stopProfile, nil
}

// startHeapProfiles writes a heap profile to path every interval (NEARDUP_MEMPROFILE),
// overwriting it whenever the heap in use is the largest seen, so the file ends up
// describing the run's peak.
func startHeapProfiles(path string, interval time.Duration) {
	go func() {
		var peak uint64
		for range time.Tick(interval) {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse <= peak {
				continue
			}
			peak = ms.HeapInuse
			if f, err := os.Create(path); err == nil {
				_ = pprof.WriteHeapProfile(f)
				f.Close()
			}
		}
	}()
}

func exit(code int) {
	stopProfile()
	os.Exit(code)
}
