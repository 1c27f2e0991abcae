package main

import (
	"os"
	"time"
)

// startWorker prepares this process to serve as an engine's SDK worker, before Beam's
// harness starts: CPU profiles when NEARDUP_CPUPROFILE is set, and the memory budget and
// heap floor of a dedup run at the default budget (applyBudget(0): GOMEMLIMIT in the
// worker's environment, else a share of its machine or container). Without a budget the
// runtime's limit is unbounded, and so is everything neardup sizes from it (spill
// thresholds, read-ahead, batch sizes). It returns the budget in force, 0 if none.
func startWorker() int64 {
	if path := os.Getenv("NEARDUP_CPUPROFILE"); path != "" {
		startWorkerCPUProfiles(path, 5*time.Second)
	}
	return applyBudget(0)
}
