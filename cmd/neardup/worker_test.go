package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/memlimit"
)

// An SDK worker runs within the default budget of a dedup run, not with the runtime's
// unbounded limit, so that what neardup sizes from the limit is bounded on engines too.
func TestWorkerHasTheDefaultBudget(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: the worker keeps the runtime's limit as given")
	}
	machine := memlimit.Machine()
	if machine <= 0 {
		t.Skip("this machine's memory cannot be read")
	}
	// No restoring afterwards: memlimit keeps this process's limit fitted to the last
	// budget applied, as the dedup tests here leave it too.
	debug.SetMemoryLimit(math.MaxInt64)

	budget := startWorker()
	require.Equal(t, int64(memlimit.DefaultShare*float64(machine)), budget)
	limit := debug.SetMemoryLimit(-1)
	assert.Less(t, limit, int64(math.MaxInt64), "the worker's runtime has a memory limit")
	assert.LessOrEqual(t, limit, budget, "the limit is the budget less the file-backed pages resident")
	assert.GreaterOrEqual(t, limit, budget/2)
}
