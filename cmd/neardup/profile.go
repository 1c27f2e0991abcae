package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"time"
)

// stopProfile ends the CPU profile and the execution trace, whichever were started; it
// is run before an error exit too, since os.Exit skips deferred calls.
var stopProfile = func() {}

// atStop adds stop to what stopProfile ends.
func atStop(stop func()) {
	prev := stopProfile
	stopProfile = func() {
		prev()
		stop()
	}
}

// startCPUProfile writes a CPU profile to path (NEARDUP_CPUPROFILE) until stopProfile
// (docs/running.md, "Profiling a run").
func startCPUProfile(path string) error {
	return startWriting(path, pprof.StartCPUProfile, pprof.StopCPUProfile)
}

// startTrace writes a Go execution trace to path (NEARDUP_TRACE) until stopProfile. It
// shows what a CPU profile cannot: when a core sits idle and what each goroutine waited
// for (go tool trace).
func startTrace(path string) error { return startWriting(path, trace.Start, trace.Stop) }

// startWriting creates path, starts writing to it and has stopProfile stop and close it.
func startWriting(path string, start func(io.Writer) error, stop func()) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := start(f); err != nil {
		f.Close()
		return err
	}
	atStop(func() {
		stop()
		f.Close()
	})
	return nil
}

// startWorkerCPUProfiles writes an SDK worker's CPU profile (NEARDUP_CPUPROFILE in the
// worker's environment) to path.PID.N, one file per window: the engine ends its workers
// with SIGKILL, so a profile written only at exit would never be written. The last
// window is lost; go tool pprof merges the rest.
func startWorkerCPUProfiles(path string, window time.Duration) {
	go func() {
		for n := 1; ; n++ {
			f, err := os.Create(fmt.Sprintf("%s.%d.%d", path, os.Getpid(), n))
			if err != nil {
				fmt.Fprintf(os.Stderr, "neardup worker: NEARDUP_CPUPROFILE: %v\n", err)
				return
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				f.Close()
				fmt.Fprintf(os.Stderr, "neardup worker: NEARDUP_CPUPROFILE: %v\n", err)
				return
			}
			time.Sleep(window)
			pprof.StopCPUProfile()
			f.Close()
		}
	}()
}

// startAllocProfile writes, when stopProfile runs, a heap profile whose alloc_space and
// alloc_objects samples cover everything the run allocated (NEARDUP_ALLOCPROFILE): where
// the collector's work comes from, which the peak profile of NEARDUP_MEMPROFILE, taken
// mid-run, does not show.
func startAllocProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	atStop(func() {
		_ = pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	})
	return nil
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
