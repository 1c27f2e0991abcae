package textfile

import (
	"bytes"
	"io"
)

// Blocks cuts a stream into blocks of whole lines, so that the lines of one file can be
// handed to several goroutines a block at a time and still be numbered as a sequential
// read numbers them. A block is about size bytes: every line that starts in it, ended by
// its terminator (a line longer than size makes a longer block; the last line of the
// stream may be unterminated).
type Blocks struct {
	r    io.Reader
	size int
	tail []byte // the start of the next block's first line
	line int64  // lines in the blocks returned so far
	free [][]byte
	err  error
}

// NewBlocks reads r in blocks of about size bytes.
func NewBlocks(r io.Reader, size int) *Blocks {
	return &Blocks{r: r, size: max(size, 64)}
}

// Next returns the next block and the number (from 1) of its first line. The block stays
// valid until it is given to Release. At the end of the stream Next returns io.EOF and no
// block; when the stream fails, the block of the lines read whole before the failure
// comes first (with a nil error), then the error, with the number of the line that broke.
func (b *Blocks) Next() (block []byte, first int64, err error) {
	if b.err != nil {
		return nil, b.line + 1, b.err
	}
	buf := b.buffer()
	buf = append(buf, b.tail...)
	b.tail = b.tail[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // a line longer than the block: grow it
		}
		n, rerr := b.r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if rerr != nil {
			if rerr != io.EOF {
				// Keep the whole lines; the partial one is where the stream broke.
				end := bytes.LastIndexByte(buf, '\n') + 1
				b.err = rerr
				return b.emit(buf[:end])
			}
			b.err = io.EOF
			return b.emit(buf) // the last line needs no terminator
		}
		if len(buf) >= b.size {
			if end := bytes.LastIndexByte(buf, '\n') + 1; end > 0 {
				b.tail = append(b.tail, buf[end:]...)
				return b.emit(buf[:end])
			}
		}
	}
}

// emit numbers block and returns it, or the pending error when it is empty.
func (b *Blocks) emit(block []byte) ([]byte, int64, error) {
	if len(block) == 0 {
		b.Release(block)
		return b.Next()
	}
	first := b.line + 1
	b.line += int64(bytes.Count(block, []byte{'\n'}))
	if block[len(block)-1] != '\n' {
		b.line++
	}
	return block, first, nil
}

// Release hands a block's memory back for a later Next.
func (b *Blocks) Release(block []byte) {
	if cap(block) > 0 {
		b.free = append(b.free, block[:0])
	}
}

func (b *Blocks) buffer() []byte {
	if n := len(b.free); n > 0 {
		buf := b.free[n-1]
		b.free = b.free[:n-1]
		return buf
	}
	return make([]byte, 0, b.size+b.size/4)
}
