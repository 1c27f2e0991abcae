package files

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// ReadError is a read that failed inside a file: a truncated or corrupt .gz/.zst stream,
// or a storage read that broke mid-way. Offset is how many bytes of the file itself (the
// compressed bytes, for .gz/.zst) had been consumed when it broke; everything the reader
// returned before the error is good.
type ReadError struct {
	Path   string
	Offset int64
	Err    error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("read %s: %v at byte %d of the file", e.Path, e.Err, e.Offset)
}

func (e *ReadError) Unwrap() error { return e.Err }

// countingReader counts the bytes read from a file, under the bufio.Reader a
// decompressor reads from: the bytes it consumed are those less what the buffer still
// holds (consumed), the exact position of the stream's damage. The decompressor gets the
// *bufio.Reader itself, not a counting wrapper: klauspost's inflater has a fast path for
// it and reads any other io.ByteReader a byte per interface call.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// consumed is how many bytes of the file have been read out of br, which reads c.
func (c *countingReader) consumed(br *bufio.Reader) int64 { return c.n - int64(br.Buffered()) }

// checkNotEmpty fails for an empty stream: the zstd decoder reads zero bytes as an empty
// corpus, while even an empty input compresses to a frame, so an empty .zst file is a
// damaged (cut) one, as an empty .gz is for compress/gzip.
func checkNotEmpty(br *bufio.Reader) error {
	if _, err := br.Peek(1); err == io.EOF {
		return errors.New("empty file: not a zstd frame")
	}
	return nil
}
