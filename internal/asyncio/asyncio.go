// Package asyncio moves the system calls (and any compression stacked under them) of a
// sequential write (Writer) or read (Reader) onto a goroutine of its own, so that they
// overlap the caller's work instead of adding to it.
//
// The output step writes every input record back, and on a plain buffered writer the
// caller's goroutine waits in write(2) (or in gzip) for every flushed buffer, which
// can cost more than routing the lines. With a Writer here the caller fills one buffer
// while the other is written. It is a plain io.Writer
// and keeps the wrapped writer's byte order; its first error reaches the caller at a
// later Write, Flush or Close, never lost.
package asyncio

import (
	"errors"
	"io"
	"runtime"
)

// Writer buffers writes and hands full buffers to a goroutine that writes them to the
// underlying writer, in order. It owns two buffers: the caller fills one while the other
// is being written.
type Writer struct {
	buf  []byte        // being filled by the caller
	full chan []byte   // to the writing goroutine
	back chan returned // the other buffer, once written
	err  error         // the first write error, as far as the caller has seen
	done bool
	stop runtime.Cleanup
}

// returned is a written buffer with the goroutine's first write error so far.
type returned struct {
	buf []byte
	err error
}

// NewWriter returns a Writer that writes to w in buffers of size bytes. Call Close (or
// Flush) and check its error: a failed write is reported by a later call.
func NewWriter(w io.Writer, size int) *Writer {
	size = max(size, 4096)
	a := &Writer{buf: make([]byte, 0, size), full: make(chan []byte, 1), back: make(chan returned, 2)}
	a.back <- returned{buf: make([]byte, 0, size)}
	// The goroutine holds the channels, not a: a Writer dropped on an error path without
	// Close becomes unreachable, and its cleanup ends the goroutine.
	go write(w, a.full, a.back)
	a.stop = runtime.AddCleanup(a, func(full chan []byte) { close(full) }, a.full)
	return a
}

func write(w io.Writer, full <-chan []byte, back chan<- returned) {
	var err error
	for b := range full {
		if err == nil {
			_, err = w.Write(b)
		}
		back <- returned{b[:0], err}
	}
}

// Write copies p into the current buffer, handing buffers over as they fill.
func (a *Writer) Write(p []byte) (int, error) {
	if a.done {
		return 0, errors.New("asyncio: write after close")
	}
	n := 0
	for len(p) > 0 && a.err == nil {
		c := copy(a.buf[len(a.buf):cap(a.buf)], p)
		a.buf = a.buf[:len(a.buf)+c]
		n += c
		p = p[c:]
		if len(a.buf) == cap(a.buf) {
			a.handOver()
		}
	}
	return n, a.err
}

// handOver sends the current buffer to the goroutine and takes the other one, waiting
// for its write when it is still in progress.
func (a *Writer) handOver() {
	a.full <- a.buf
	a.buf = a.take()
}

func (a *Writer) take() []byte {
	r := <-a.back
	if a.err == nil {
		a.err = r.err
	}
	return r.buf
}

// Flush hands over what is buffered and waits until all of it has been written.
func (a *Writer) Flush() error {
	if a.done || a.err != nil {
		return a.err
	}
	if len(a.buf) > 0 {
		a.handOver()
	}
	// The other buffer comes back once written; it goes straight back to the queue.
	a.back <- returned{buf: a.take()}
	return a.err
}

// Close flushes and stops the goroutine. It does not close the underlying writer.
func (a *Writer) Close() error {
	if a.done {
		return a.err
	}
	err := a.Flush()
	a.done = true
	a.stop.Stop()
	close(a.full)
	return err
}
