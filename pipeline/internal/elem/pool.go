package elem

import (
	"runtime"

	"github.com/neardup/neardup/internal/ordered"
)

// PartitionPool runs a stage's per-partition work on one goroutine per core and hands
// the results back in input order (Prism runs a stage as one bundle, on one goroutine).
// A delivery may fail: the first failure is returned by the next add or flush, and the
// work still queued is dropped then, so a DoFn reused after a failed bundle starts empty.
type PartitionPool[In, Out any] struct {
	pool *ordered.Pool[In, Out]
	err  error
}

func NewPartitionPool[In, Out any](work func(In) Out) *PartitionPool[In, Out] {
	return &PartitionPool[In, Out]{pool: ordered.New(runtime.GOMAXPROCS(0), 1, func() func(In) Out { return work })}
}

// add queues x and delivers the finished results, in order.
func (p *PartitionPool[In, Out]) Add(x In, deliver func(Out) error) error {
	p.pool.Add(x, p.keep(deliver))
	return p.failed()
}

// flush delivers every queued result, in order.
func (p *PartitionPool[In, Out]) Flush(deliver func(Out) error) error {
	p.pool.Flush(p.keep(deliver))
	return p.failed()
}

func (p *PartitionPool[In, Out]) Close() {
	if p != nil {
		p.pool.Close()
	}
}

func (p *PartitionPool[In, Out]) keep(deliver func(Out) error) func(Out) {
	return func(r Out) {
		if p.err == nil {
			p.err = deliver(r)
		}
	}
}

func (p *PartitionPool[In, Out]) failed() error {
	err := p.err
	if err != nil {
		p.pool.Flush(func(Out) {})
		p.err = nil
	}
	return err
}
