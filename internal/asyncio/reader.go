package asyncio

import (
	"io"
	"runtime"
)

// Reader reads ahead from an underlying reader on a goroutine of its own, a buffer at a
// time, so that the reading (and any decompression under it) overlaps the caller's
// work instead of running on the goroutine that also splits and hands on the lines.
// The bytes come out in order, and the
// underlying reader's error (io.EOF included) after every byte it returned before it.
type Reader struct {
	cur    chunk // being consumed
	full   chan chunk
	free   chan []byte
	done   chan struct{}
	ended  chan struct{}
	closed bool
	stop   runtime.Cleanup
}

// chunk is one buffer read ahead: rest is its unread part, err what ended the read.
type chunk struct {
	buf, rest []byte
	err       error
}

// NewReader reads r ahead in buffers of size bytes. Close stops the reading; the caller
// must not use r itself until then.
func NewReader(r io.Reader, size int) *Reader {
	size = max(size, 4096)
	a := &Reader{full: make(chan chunk, 1), free: make(chan []byte, 2), done: make(chan struct{}), ended: make(chan struct{})}
	a.free <- make([]byte, size)
	a.free <- make([]byte, size)
	// The goroutine holds the channels, not a: a Reader dropped without Close becomes
	// unreachable, and its cleanup ends the goroutine.
	go fill(r, a.full, a.free, a.done, a.ended)
	a.stop = runtime.AddCleanup(a, func(done chan struct{}) { close(done) }, a.done)
	return a
}

func fill(r io.Reader, full chan<- chunk, free <-chan []byte, done <-chan struct{}, ended chan<- struct{}) {
	defer close(ended)
	for {
		var buf []byte
		select {
		case buf = <-free:
		case <-done:
			return
		}
		n := 0
		var err error
		for n < len(buf) && err == nil {
			var m int
			m, err = r.Read(buf[n:])
			n += m
		}
		select {
		case full <- chunk{buf: buf, rest: buf[:n], err: err}:
		case <-done:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read copies read-ahead bytes into p, waiting for the next buffer when none are left.
func (a *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for len(a.cur.rest) == 0 {
		if a.cur.err != nil {
			return 0, a.cur.err
		}
		if a.cur.buf != nil {
			a.free <- a.cur.buf
		}
		a.cur = <-a.full
	}
	n := copy(p, a.cur.rest)
	a.cur.rest = a.cur.rest[n:]
	return n, nil
}

// Close stops the reading goroutine and waits for it, so that the underlying reader is
// the caller's again (to close it). It does not close the underlying reader.
func (a *Reader) Close() error {
	if !a.closed {
		a.closed = true
		a.stop.Stop()
		close(a.done)
		<-a.ended
	}
	return nil
}
