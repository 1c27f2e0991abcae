// Package ordered runs a per-item function on several goroutines while one caller feeds
// items and receives the results in input order, on its own goroutine.
//
// A Beam DoFn may emit only from the goroutine that calls ProcessElement or FinishBundle,
// and Prism puts all of a stage's ready elements into one bundle, so a one-file corpus is
// featurized by one call sequence on one goroutine. A Pool lets that DoFn hand the
// per-document work to every core and still emit from its own goroutine, in the same
// order as a sequential run would.
package ordered

import (
	"fmt"
	"sync"
)

// Pool applies a function to items on a fixed set of worker goroutines. Items are
// handed over in chunks (one channel operation per chunk, not per item) and at most a
// few chunks per worker are in flight, so memory does not grow with the input. Add and
// Flush must be called from one goroutine; results are delivered on it, in input order.
type Pool[In, Out any] struct {
	chunk    int
	maxQueue int
	pending  []In
	queue    []*job[In, Out] // dispatched chunks, oldest first
	free     []*job[In, Out] // delivered chunks whose slices can be reused
	jobs     chan *job[In, Out]
	wg       sync.WaitGroup
	closed   bool
	sized    int64 // bytes added by AddSized since the pool was last drained
}

type job[In, Out any] struct {
	in    []In
	out   []Out
	panic any // a worker's panic, re-raised on the caller's goroutine
	done  chan struct{}
}

// New starts workers goroutines (at least one), each with its own function from
// newWorker (so each may own scratch buffers), and hands them chunk items at a time.
func New[In, Out any](workers, chunk int, newWorker func() func(In) Out) *Pool[In, Out] {
	workers, chunk = max(workers, 1), max(chunk, 1)
	p := &Pool[In, Out]{chunk: chunk, maxQueue: 3 * workers, jobs: make(chan *job[In, Out], 3*workers+1)}
	for range workers {
		fn := newWorker()
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for j := range p.jobs {
				run(fn, j)
			}
		}()
	}
	return p
}

func run[In, Out any](fn func(In) Out, j *job[In, Out]) {
	defer close(j.done)
	defer func() {
		if r := recover(); r != nil {
			j.panic = r
		}
	}()
	j.out = j.out[:0]
	for _, x := range j.in {
		j.out = append(j.out, fn(x))
	}
}

// Add queues x. It delivers the results of every chunk that has finished, in order, and
// waits for the oldest chunk only when too many are in flight.
func (p *Pool[In, Out]) Add(x In, deliver func(Out)) {
	p.pending = append(p.pending, x)
	if len(p.pending) < p.chunk {
		return
	}
	p.dispatch()
	for len(p.queue) > 0 {
		if len(p.queue) <= p.maxQueue {
			select {
			case <-p.queue[0].done:
			default:
				return
			}
		}
		p.deliverHead(deliver)
	}
}

// AddSized is Add of an item that holds n bytes until delivered: once the items added
// since the pool was last drained hold more than most bytes, it waits for every result
// and delivers it (Flush), so a run of large items holds at most most bytes and one item,
// whatever the pool's depth.
func (p *Pool[In, Out]) AddSized(x In, n, most int64, deliver func(Out)) {
	p.Add(x, deliver)
	if p.sized += n; p.sized > most {
		p.Flush(deliver)
	}
}

// Flush waits for every queued item and delivers the remaining results in order.
func (p *Pool[In, Out]) Flush(deliver func(Out)) {
	p.sized = 0
	if len(p.pending) > 0 {
		p.dispatch()
	}
	for len(p.queue) > 0 {
		p.deliverHead(deliver)
	}
}

// Close stops the workers; items still queued are dropped (call Flush first).
func (p *Pool[In, Out]) Close() {
	if !p.closed {
		p.closed = true
		close(p.jobs)
		p.wg.Wait()
	}
}

func (p *Pool[In, Out]) dispatch() {
	if p.closed {
		panic("ordered: Add or Flush after Close")
	}
	var j *job[In, Out]
	if n := len(p.free); n > 0 {
		j, p.free = p.free[n-1], p.free[:n-1]
	} else {
		j = &job[In, Out]{in: make([]In, 0, p.chunk), out: make([]Out, 0, p.chunk)}
	}
	j.in = append(j.in[:0], p.pending...)
	j.done = make(chan struct{})
	clear(p.pending)
	p.pending = p.pending[:0]
	p.queue = append(p.queue, j)
	p.jobs <- j
}

// deliverHead waits for the oldest chunk and delivers its results.
func (p *Pool[In, Out]) deliverHead(deliver func(Out)) {
	j := p.queue[0]
	<-j.done
	p.queue[0] = nil
	p.queue = p.queue[1:]
	if j.panic != nil {
		panic(fmt.Sprintf("ordered: worker panicked: %v", j.panic))
	}
	for _, r := range j.out {
		deliver(r)
	}
	// Drop references so delivered items and results can be collected.
	clear(j.in)
	clear(j.out)
	p.free = append(p.free, j)
}
