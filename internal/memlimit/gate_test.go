package memlimit

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestGateBoundsWhatIsHeldTogether: under a memory limit, holders never hold more than
// the gate's share of it together, a request larger than the share still proceeds
// (alone), and without a limit nobody waits.
func TestGateBoundsWhatIsHeldTogether(t *testing.T) {
	old := debug.SetMemoryLimit(1 << 30)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	g := NewGate(4) // capacity 256 MiB
	var held, peak atomic.Int64
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := int64(100 << 20)
			if i%10 == 0 {
				want = 1 << 40 // larger than the capacity
			}
			n := g.Acquire(want)
			now := held.Add(n)
			for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
			}
			time.Sleep(time.Millisecond)
			held.Add(-n)
			g.Release(n)
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, peak.Load(), int64(256<<20), "held together past the capacity")
	assert.Positive(t, peak.Load())

	debug.SetMemoryLimit(1<<63 - 1)
	assert.Zero(t, g.Acquire(1<<40), "no limit: nothing taken, no wait")
}
