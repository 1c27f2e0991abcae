package ordered

import (
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Results arrive in input order whatever order the workers finish in, across several
// Flush cycles (a DoFn flushes once per bundle and keeps the pool).
func TestResultsInInputOrder(t *testing.T) {
	p := New(4, 3, func() func(int) int {
		r := rand.New(rand.NewPCG(1, 2))
		return func(x int) int {
			if r.IntN(4) == 0 {
				time.Sleep(time.Duration(r.IntN(200)) * time.Microsecond)
			}
			return x * x
		}
	})
	defer p.Close()
	for _, n := range []int{0, 1, 2, 3, 10, 1000} {
		var got []int
		deliver := func(y int) { got = append(got, y) }
		for i := range n {
			p.Add(i, deliver)
		}
		p.Flush(deliver)
		if len(got) != n {
			t.Fatalf("n=%d: %d results", n, len(got))
		}
		for i, y := range got {
			if y != i*i {
				t.Fatalf("n=%d: result %d is %d, want %d", n, i, y, i*i)
			}
		}
	}
}

// Two workers really run at the same time: each of the first two items waits until the
// other has started, which a pool running one item at a time would never satisfy.
func TestWorkersRunConcurrently(t *testing.T) {
	var started sync.WaitGroup
	started.Add(2)
	var first atomic.Int32
	p := New(2, 1, func() func(int) int {
		return func(x int) int {
			if first.Add(1) <= 2 {
				started.Done()
				started.Wait()
			}
			return x
		}
	})
	defer p.Close()
	var got []int
	for i := range 8 {
		p.Add(i, func(y int) { got = append(got, y) })
	}
	p.Flush(func(y int) { got = append(got, y) })
	if len(got) != 8 {
		t.Fatalf("got %v", got)
	}
}

// At most a bounded number of items is in flight, so a long input does not pile up
// unprocessed in memory.
func TestInFlightIsBounded(t *testing.T) {
	var inFlight, peak atomic.Int64
	const workers, chunk = 2, 5
	p := New(workers, chunk, func() func(int) int {
		return func(x int) int { return x }
	})
	defer p.Close()
	for i := range 10000 {
		inFlight.Add(1)
		p.Add(i, func(int) { inFlight.Add(-1) })
		if v := inFlight.Load(); v > peak.Load() {
			peak.Store(v)
		}
	}
	p.Flush(func(int) { inFlight.Add(-1) })
	if inFlight.Load() != 0 {
		t.Fatalf("%d items never delivered", inFlight.Load())
	}
	if limit := int64((3*workers + 2) * chunk); peak.Load() > limit {
		t.Fatalf("%d items in flight, limit %d", peak.Load(), limit)
	}
}

// A worker's panic surfaces on the caller's goroutine, where Beam turns it into a
// failed bundle, instead of killing the process from a worker.
func TestWorkerPanicReachesCaller(t *testing.T) {
	p := New(2, 2, func() func(int) int {
		return func(x int) int {
			if x == 3 {
				panic("bad item")
			}
			return x
		}
	})
	defer p.Close()
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "bad item") {
			t.Fatalf("recovered %v, want the worker's panic", r)
		}
	}()
	for i := range 6 {
		p.Add(i, func(int) {})
	}
	p.Flush(func(int) {})
	t.Fatal("no panic")
}

// AddSized holds no more than its bound and one item added but not yet delivered,
// where Add holds the pool's depth of them; the results still come in input order.
func TestAddSizedBoundsWhatIsHeld(t *testing.T) {
	p := New(2, 64, func() func(int) int { return func(x int) int { return x } })
	defer p.Close()
	const size, most = 10, 100
	added, delivered, held := 0, 0, 0
	deliver := func(x int) {
		if x != delivered {
			t.Fatalf("delivered %d, want %d", x, delivered)
		}
		delivered++
	}
	for i := range 5000 {
		added++
		p.AddSized(i, size, most, deliver)
		held = max(held, (added-delivered)*size)
	}
	p.Flush(deliver)
	if delivered != added {
		t.Fatalf("delivered %d of %d", delivered, added)
	}
	if held > most+size {
		t.Fatalf("held %d bytes, more than %d and one item", held, most)
	}
}
