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

// countingReader counts the bytes a decompressor consumes. It is also an io.ByteReader,
// so compress/flate reads through it directly instead of adding a read-ahead buffer of
// its own: the count is then the exact position of the gzip stream's damage.
type countingReader struct {
	br *bufio.Reader
	n  int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.br.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.br.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// checkNotEmpty fails for an empty stream: the zstd decoder reads zero bytes as an empty
// corpus, while even an empty input compresses to a frame, so an empty .zst file is a
// damaged (cut) one, as an empty .gz is for compress/gzip.
func checkNotEmpty(c *countingReader) error {
	if _, err := c.br.Peek(1); err == io.EOF {
		return errors.New("empty file: not a zstd frame")
	}
	return nil
}
