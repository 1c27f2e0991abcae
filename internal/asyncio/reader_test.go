package asyncio

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// errAfter returns data in reads of random sizes, then err.
type errAfter struct {
	data []byte
	err  error
	rng  *rand.Rand
}

func (f *errAfter) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p[:min(len(p), 1+f.rng.IntN(10_000))], f.data)
	f.data = f.data[n:]
	return n, nil
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// TestReaderKeepsBytesInOrder reads through several buffers in reads of odd sizes and
// gets exactly the underlying bytes, then io.EOF, every time it asks again.
func TestReaderKeepsBytesInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := randomBytes(rng, 50_000)
	r := NewReader(&errAfter{data: data, err: io.EOF, rng: rng}, 4096)
	defer r.Close()
	if err := iotest.TestReader(r, data); err != nil {
		t.Fatal(err)
	}
}

// TestReaderErrorComesAfterTheBytes: the underlying reader's error is returned only
// once every byte read before it has been, and again on every later read.
func TestReaderErrorComesAfterTheBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := randomBytes(rng, 30_000)
	broke := errors.New("stream broke")
	r := NewReader(&errAfter{data: data, err: broke, rng: rng}, 4096)
	defer r.Close()
	got, err := io.ReadAll(iotest.OneByteReader(r))
	if !errors.Is(err, broke) || !bytes.Equal(got, data) {
		t.Fatalf("read %d of %d bytes, then %v", len(got), len(data), err)
	}
	if n, err := r.Read(make([]byte, 10)); n != 0 || !errors.Is(err, broke) {
		t.Fatalf("after the error: %d, %v", n, err)
	}
}

// endless never ends: the read-ahead goroutine waits on a full pipeline, and Close must
// still stop it.
type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }

func TestReaderCloseStopsTheReadAhead(t *testing.T) {
	r := NewReader(endless{}, 4096)
	if _, err := io.ReadFull(r, make([]byte, 10_000)); err != nil {
		t.Fatal(err)
	}
	r.Close() // returns only once the goroutine has ended
	r.Close()
	select {
	case <-r.ended:
	default:
		t.Fatal("the read-ahead goroutine is still running")
	}
}
