package memlimit

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestFloorPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, floor uint64
		base, want  int
	}{
		{live: 16 * mib, floor: 256 * mib, base: 100, want: 1500}, // 16 MiB × 16 = 256 MiB
		{live: 128 * mib, floor: 256 * mib, base: 100, want: 100}, // GOGC alone reaches the floor
		{live: 512 * mib, floor: 256 * mib, base: 100, want: 100},
		{live: 100 * mib, floor: 256 * mib, base: 50, want: 156},
		{live: 0, floor: 256 * mib, base: 100, want: 100}, // nothing measured yet
	} {
		if got := floorPercent(c.live, c.floor, c.base); got != c.want {
			t.Errorf("floorPercent(%d MiB, %d MiB, %d) = %d, want %d", c.live/mib, c.floor/mib, c.base, got, c.want)
		}
	}
}

func TestFloorFor(t *testing.T) {
	if got := FloorFor(0); got != 0 {
		t.Errorf("FloorFor(unknown) = %d, want 0", got)
	}
	if got := FloorFor(18 << 30); got != MaxFloor {
		t.Errorf("FloorFor(18 GiB) = %d, want %d", got, MaxFloor)
	}
	if got := FloorFor(512 << 20); got != 64<<20 {
		t.Errorf("FloorFor(512 MiB) = %d, want 64 MiB (an eighth)", got)
	}
}

// The floor takes effect through the collector itself: after a collection the GOGC in
// force is the one that puts the next goal at the floor.
//
// The tuner cannot be disarmed: it keeps setting GOGC for the rest of this test binary,
// whose other tests do not depend on it.
func TestHeapFloorRaisesGOGCAfterACollection(t *testing.T) {
	debug.SetGCPercent(100)
	HeapFloor(1 << 30)
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		time.Sleep(time.Millisecond) // the finalizer runs on its own goroutine
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		if p > 1000 {
			return // a live heap of a few MiB needs a GOGC in the thousands to reach 1 GiB
		}
		if time.Now().After(deadline) {
			t.Fatalf("GOGC is %d after collections with a 1 GiB floor, want it raised above 1000", p)
		}
	}
}
