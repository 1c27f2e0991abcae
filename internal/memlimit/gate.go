package memlimit

import (
	"math"
	"runtime/debug"
	"sync"
)

// Gate bounds the bytes that the holders of a process-wide resource hold at once: a
// stage whose elements each decode a large structure takes a share of the memory limit
// before decoding. Per-pool bounds are not enough when the runner runs a stage's
// bundles side by side in one process, each with its own pool.
type Gate struct {
	share int64 // the limit's divisor: holders hold at most limit/share bytes together
	mu    sync.Mutex
	cond  sync.Cond
	held  int64
}

// NewGate is a gate whose holders hold at most 1/share of the memory limit together.
func NewGate(share int64) *Gate {
	g := &Gate{share: share}
	g.cond.L = &g.mu
	return g
}

// Acquire waits until n more bytes fit in the gate's capacity and takes them; it returns
// what it took, which the caller passes to Release. A request larger than the capacity
// takes the whole capacity, once nothing else is held, so it always proceeds. Without a
// memory limit the gate never waits.
func (g *Gate) Acquire(n int64) int64 {
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 || n <= 0 {
		return 0
	}
	capacity := max(1, limit/g.share)
	n = min(n, capacity)
	g.mu.Lock()
	for g.held > 0 && g.held+n > capacity {
		g.cond.Wait()
	}
	g.held += n
	g.mu.Unlock()
	return n
}

// Release returns n bytes taken by Acquire.
func (g *Gate) Release(n int64) {
	if n == 0 {
		return
	}
	g.mu.Lock()
	g.held -= n
	g.mu.Unlock()
	g.cond.Broadcast()
}
