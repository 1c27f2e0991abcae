package asyncio

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// TestWriterKeepsBytesInOrder writes pieces of every size, from empty to several
// buffers, and expects exactly the same bytes downstream, at every Flush too.
func TestWriterKeepsBytesInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var want, got bytes.Buffer
	w := NewWriter(&got, 4096)
	for i := range 2000 {
		p := make([]byte, rng.IntN(3*4096))
		for j := range p {
			p[j] = byte(rng.Uint32())
		}
		if i%7 == 0 {
			p = p[:0]
		}
		n, err := w.Write(p)
		if err != nil || n != len(p) {
			t.Fatalf("Write(%d bytes) = %d, %v", len(p), n, err)
		}
		want.Write(p)
		if i%97 == 0 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("after Flush %d: %d bytes written, want %d", i, got.Len(), want.Len())
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("after Close: %d bytes written, want %d (or a difference in order)", got.Len(), want.Len())
	}
	if _, err := w.Write([]byte("x")); err == nil {
		t.Error("Write after Close succeeded")
	}
}

// failAfter accepts limit bytes and then fails every write.
type failAfter struct {
	buf   bytes.Buffer
	limit int
}

var errFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.buf.Len()+len(p) > f.limit {
		return 0, errFull
	}
	return f.buf.Write(p)
}

// TestWriterReportsTheFirstError fills a writer that fails part-way and expects the
// failure from a later call and from Close, and nothing written after it.
func TestWriterReportsTheFirstError(t *testing.T) {
	for _, limit := range []int{0, 4096, 3 * 4096} {
		dst := &failAfter{limit: limit}
		w := NewWriter(dst, 4096)
		var werr error
		for range 100 {
			if _, werr = w.Write(make([]byte, 1000)); werr != nil {
				break
			}
		}
		cerr := w.Close()
		if !errors.Is(werr, errFull) && !errors.Is(cerr, errFull) {
			t.Fatalf("limit %d: Write gave %v and Close %v, want %v from one of them", limit, werr, cerr, errFull)
		}
		if !errors.Is(cerr, errFull) {
			t.Errorf("limit %d: Close = %v after a failed write, want %v", limit, cerr, errFull)
		}
		if dst.buf.Len() != limit {
			t.Errorf("limit %d: %d bytes reached the writer, want the %d before the failure", limit, dst.buf.Len(), limit)
		}
	}
}

// TestFlushOfNothing flushes and closes a writer that never got a byte.
func TestFlushOfNothing(t *testing.T) {
	var got bytes.Buffer
	w := NewWriter(&got, 0)
	for range 3 {
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil || got.Len() != 0 {
		t.Fatalf("Close = %v with %d bytes written", err, got.Len())
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

// TestDroppedWriterEndsItsGoroutine drops writers without closing them (an error path
// that forgets Close) and expects their goroutines to end once they are collected.
func TestDroppedWriterEndsItsGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 50 {
		w := NewWriter(io.Discard, 4096)
		w.Write([]byte("never flushed"))
	}
	for i := 0; i < 100 && runtime.NumGoroutine() > before; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines left after dropping 50 writers (%d before)", n, before)
	}
}
