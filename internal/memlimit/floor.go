package memlimit

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// HeapFloor keeps the garbage collector's heap goal at no less than floor bytes: after
// every collection it raises GOGC for the next one so that the heap may grow to
// max(floor, the goal GOGC alone gives) before it is collected again.
//
// Why: the job's live heap is small next to what it allocates in short-lived batches,
// so the default GOGC alone collects far more often than the memory saved is worth. The
// soft memory limit (Apply) still wins when memory runs short, and a live heap above
// the floor gets the plain GOGC goal, so the floor adds at most floor bytes to the peak.
// GOGC=off in the environment turns the floor off too.
func HeapFloor(floor int64) {
	base := debug.SetGCPercent(100)
	debug.SetGCPercent(base)
	if base < 0 || floor <= 0 {
		return
	}
	t := &floorTuner{floor: uint64(floor), base: base, sample: []metrics.Sample{{Name: liveHeap}}}
	t.arm(new(sentinel))
}

// MaxFloor is the largest heap floor FloorFor gives. It is a balance: a higher floor
// lets the heap run through more fresh memory between collections, and every fresh page
// costs a fault; a lower one collects more often than the faults it saves.
const MaxFloor = 128 << 20

// FloorFor is the heap floor for a memory limit: MaxFloor, or an eighth of a smaller
// limit's bytes; none when the limit is unknown (0).
func FloorFor(limit int64) int64 {
	if limit <= 0 {
		return 0
	}
	return min(MaxFloor, limit/8)
}

const liveHeap = "/gc/heap/live:bytes"

// sentinel is an object whose finalizer runs once per collection: it is unreachable
// from the moment it is armed, and re-armed from its finalizer.
type sentinel struct{ _ [16]byte } // not zero-sized, which would never be finalized

type floorTuner struct {
	floor  uint64
	base   int
	sample []metrics.Sample
}

func (t *floorTuner) arm(s *sentinel) { runtime.SetFinalizer(s, t.afterGC) }

func (t *floorTuner) afterGC(s *sentinel) {
	debug.SetGCPercent(t.percent())
	t.arm(s)
}

// percent is the GOGC that puts the next goal at max(floor, live × (1 + base/100)).
func (t *floorTuner) percent() int {
	metrics.Read(t.sample)
	if t.sample[0].Value.Kind() != metrics.KindUint64 {
		return t.base
	}
	return floorPercent(t.sample[0].Value.Uint64(), t.floor, t.base)
}

func floorPercent(live, floor uint64, base int) int {
	if live == 0 || live*uint64(100+base)/100 >= floor {
		return base
	}
	return int((floor - live) * 100 / live)
}
