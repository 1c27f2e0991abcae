package textfile

import (
	"bytes"
	"io"
)

// Blocks cuts a stream into blocks of whole lines, so that the lines of one file can be
// handed to several goroutines a block at a time and still be numbered as a sequential
// read numbers them. A block is about size bytes: every line that starts in it, ended by
// its terminator (a line longer than size makes a longer block, up to the limit; the last
// line of the stream may be unterminated).
type Blocks struct {
	r     io.Reader
	size  int
	limit int    // longest record held; 0: none
	tail  []byte // the start of the next block's first line
	line  int64  // lines in the blocks returned so far
	free  [][]byte
	err   error
	// long is a line over the limit that ended the last block, returned next; while
	// skipping, the rest of it is still in the stream.
	long     *LongLineError
	skipping bool
	lastCR   bool // the last byte of the long line read so far is '\r'
}

// NewBlocks reads r in blocks of about size bytes.
func NewBlocks(r io.Reader, size int) *Blocks {
	return &Blocks{r: r, size: max(size, 64)}
}

// Limit makes Next hand back a line whose record is longer than n bytes as a
// *LongLineError of its own, between the blocks before and after it, instead of in a
// block: at most about n bytes and the block are held for it. n <= 0 means no limit.
func (b *Blocks) Limit(n int) *Blocks {
	b.limit = max(n, 0)
	return b
}

// Next returns the next block and the number (from 1) of its first line. The block stays
// valid until it is given to Release. At the end of the stream Next returns io.EOF and no
// block; when the stream fails, the block of the lines read whole before the failure
// comes first (with a nil error), then the error, with the number of the line that broke.
// A line over the limit comes as no block, its number and a *LongLineError.
func (b *Blocks) Next() (block []byte, first int64, err error) {
	if b.long != nil {
		return b.skipLong()
	}
	if b.err != nil && len(b.tail) == 0 {
		return nil, b.line + 1, b.err
	}
	buf := b.buffer()
	buf = append(buf, b.tail...)
	b.tail = b.tail[:0]
	// The lines starting before scan are checked against the limit; buf[scan:searched]
	// has no '\n'.
	scan, searched := 0, 0
	for {
		if end, ok := b.findLong(buf, &scan, &searched); ok {
			return b.emit(buf[:end])
		}
		rerr := b.err
		if rerr == nil {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)] // a line longer than the block: grow it
			}
			var n int
			n, rerr = b.r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if rerr == nil {
				if end, ok := b.findLong(buf, &scan, &searched); ok {
					return b.emit(buf[:end])
				}
				if len(buf) >= b.size {
					if end := bytes.LastIndexByte(buf, '\n') + 1; end > 0 {
						b.tail = append(b.tail, buf[end:]...)
						return b.emit(buf[:end])
					}
				}
				continue
			}
			b.err = rerr
			if end, ok := b.findLong(buf, &scan, &searched); ok {
				if b.skipping && rerr != io.EOF {
					// The long line is where the stream broke.
					b.long = nil
				}
				b.skipping = false // the end of the stream ends the line
				return b.emit(buf[:end])
			}
		}
		// buf holds the rest of the stream, with no long line among its whole lines.
		if rerr != io.EOF {
			// Keep the whole lines; the partial one is where the stream broke.
			return b.emit(buf[:bytes.LastIndexByte(buf, '\n')+1])
		}
		if b.limit > 0 && len(buf)-scan > b.limit {
			// The last line, unterminated: all of it is its record.
			b.long = &LongLineError{Bytes: int64(len(buf) - scan), Record: int64(len(buf) - scan), Limit: b.limit}
			return b.emit(buf[:scan])
		}
		return b.emit(buf) // the last line needs no terminator
	}
}

// findLong checks the lines of buf from *scan on against the limit. At the first one over
// it, it sets b.long (and the tail after the line, or b.skipping when the line goes on in
// the stream) and returns where the block before it ends.
func (b *Blocks) findLong(buf []byte, scan, searched *int) (int, bool) {
	if b.limit <= 0 {
		return 0, false
	}
	for {
		start := *scan
		i := bytes.IndexByte(buf[max(start, *searched):], '\n')
		if i >= 0 {
			i += max(start, *searched) - start
		}
		if i < 0 {
			*searched = len(buf)
			// Past limit+1 bytes without a '\n' the record is over the limit whatever
			// follows ("\r\n" ends it at most).
			if len(buf)-start > b.limit+1 {
				b.long = &LongLineError{Bytes: int64(len(buf) - start), Record: int64(len(buf) - start), Limit: b.limit}
				b.skipping, b.lastCR = true, buf[len(buf)-1] == '\r'
				return start, true
			}
			return 0, false
		}
		line := buf[start : start+i+1]
		if rec := len(Content(line)); rec > b.limit {
			b.long = &LongLineError{Bytes: int64(len(line)), Record: int64(rec), Limit: b.limit}
			b.tail = append(b.tail, buf[start+i+1:]...)
			return start, true
		}
		*scan = start + i + 1
	}
}

// skipLong reads past the rest of the long line in the stream, if any, and returns it.
func (b *Blocks) skipLong() ([]byte, int64, error) {
	long := b.long
	b.long = nil
	for b.skipping {
		buf := b.buffer()
		n, rerr := b.r.Read(buf[:cap(buf)])
		buf = buf[:n]
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			cr := (i > 0 && buf[i-1] == '\r') || (i == 0 && b.lastCR)
			long.Bytes += int64(i + 1)
			long.Record = long.Bytes - 1
			if cr {
				long.Record--
			}
			b.tail = append(b.tail, buf[i+1:]...)
			b.skipping = false
		} else {
			long.Bytes += int64(n)
			long.Record = long.Bytes // unterminated so far
			if n > 0 {
				b.lastCR = buf[n-1] == '\r'
			}
		}
		b.Release(buf)
		if b.skipping && rerr != nil {
			b.skipping = false
			b.err = rerr
			if rerr != io.EOF {
				return nil, b.line + 1, rerr
			}
		}
	}
	b.line++
	long.Line = b.line
	return nil, b.line, long
}

// emit numbers block and returns it, or the pending long line or error when it is empty.
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
