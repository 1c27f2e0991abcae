// Package textfile reads line-oriented input files: it splits a stream into physical lines
// (any length, '\n' or "\r\n" terminated, a final line without a terminator included) for
// both the JSONL and plain-text formats, and turns a plain-text line into a document.
//
// The reader is shared by neardup's source and sink: the sink re-reads every input with
// the same line splitting, so line N means the same bytes on both sides.
package textfile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// Reader yields the physical lines of a stream with their 1-based numbers. Without a
// limit (Limit) lines have no length limit: a 50 MB line is read whole (bufio.Scanner's
// fixed buffer would fail).
type Reader struct {
	br    *bufio.Reader
	buf   []byte // holds a line longer than the bufio buffer
	line  int64
	err   error
	limit int // longest record read whole; 0: none
}

// NewReader reads lines from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 1<<20)}
}

// Limit makes Next read past a line whose record (its content, Content) is longer than n
// bytes without holding it: at most about n bytes and the read buffer are held for it,
// whatever its length. n <= 0 means no limit.
func (r *Reader) Limit(n int) *Reader {
	r.limit = max(n, 0)
	return r
}

// LongLineError is what Next returns for a line over the reader's limit. It is no
// failure of the stream: the next call goes on with the next line.
type LongLineError struct {
	Line   int64 // its number
	Bytes  int64 // its length in the stream, terminator included
	Record int64 // its record's length, without the terminator
	Limit  int
}

func (e *LongLineError) Error() string {
	return fmt.Sprintf("line %d: record of %d bytes is longer than the limit of %d bytes", e.Line, e.Record, e.Limit)
}

// Next returns the next line including its terminator ("\n", "\r\n", or none for a final
// unterminated line) and its number. The slice is valid until the next call. At the end of
// the stream it returns io.EOF with no line. When the stream fails mid-way it returns the
// partial line read so far, the number of the line that broke, and the error; every later
// call returns the same error. A line over the limit (Limit) is returned as the start of
// its bytes that were held (at least the limit's worth) with a *LongLineError.
func (r *Reader) Next() (line []byte, num int64, err error) {
	if r.err != nil {
		return nil, r.line, r.err
	}
	frag, err := r.br.ReadSlice('\n')
	total := int64(len(frag))
	if err == bufio.ErrBufferFull {
		r.buf = append(r.buf[:0], frag...)
		last2 := lastTwo([2]byte{}, frag) // the line's last two bytes, for its record length
		for err == bufio.ErrBufferFull {
			frag, err = r.br.ReadSlice('\n')
			total += int64(len(frag))
			// Past limit+1 bytes without a '\n' the record is over the limit whatever
			// follows ("\r\n" ends it at most): the rest is read, not kept.
			if r.limit == 0 || len(r.buf) <= r.limit+1 {
				r.buf = append(r.buf, frag...)
			}
			last2 = lastTwo(last2, frag)
		}
		frag = r.buf
		if total > int64(len(frag)) {
			r.line++
			if err != nil && err != io.EOF {
				r.err = err
				return frag, r.line, err
			}
			if err == io.EOF {
				r.err = io.EOF
			}
			return frag, r.line, r.long(total, total-terminator(last2[:]))
		}
	}
	switch {
	case err == io.EOF && len(frag) == 0:
		r.err = io.EOF
		return nil, r.line, io.EOF
	case err == io.EOF: // final line without '\n'
		r.err = io.EOF
	case err != nil:
		r.err = err
		r.line++
		return frag, r.line, err
	}
	r.line++
	if rec := len(Content(frag)); r.limit > 0 && rec > r.limit {
		return frag, r.line, r.long(total, int64(rec))
	}
	return frag, r.line, nil
}

func (r *Reader) long(bytes, record int64) error {
	return &LongLineError{Line: r.line, Bytes: bytes, Record: record, Limit: r.limit}
}

// lastTwo returns the last two bytes of a stream that ended in prev and then frag.
func lastTwo(prev [2]byte, frag []byte) [2]byte {
	switch n := len(frag); {
	case n >= 2:
		return [2]byte{frag[n-2], frag[n-1]}
	case n == 1:
		return [2]byte{prev[1], frag[0]}
	}
	return prev
}

// terminator is the length of the line terminator at the end of tail: 2 for "\r\n", 1
// for "\n", else 0.
func terminator(tail []byte) int64 {
	return int64(len(tail) - len(Content(tail)))
}

// Content strips a line's terminator: "\n" or "\r\n". A lone '\r' elsewhere is content.
func Content(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
	}
	return line
}

var bom = []byte("\xef\xbb\xbf")

// Record returns the record bytes of line number num: its content without the terminator
// and, on line 1, without a UTF-8 byte order mark (a file marker, not part of the record).
func Record(line []byte, num int64) []byte {
	c := Content(line)
	if num == 1 {
		c = bytes.TrimPrefix(c, bom)
	}
	return c
}

// IsBlank reports whether a record holds only whitespace (or nothing).
func IsBlank(rec []byte) bool {
	return len(bytes.TrimSpace(rec)) == 0
}

// ID is the generated id of a record without one: "<file>:<line>", stable across runs.
func ID(file string, line int64) string {
	return file + ":" + strconv.FormatInt(line, 10)
}

// Text returns a plain-text record as a document text, replacing each invalid UTF-8 byte
// with U+FFFD (as encoding/json does) and reporting whether any was replaced. NUL and
// other control bytes are kept: they are text as far as the input is concerned.
func Text(rec []byte) (text string, invalidUTF8 bool) {
	if utf8.Valid(rec) {
		return string(rec), false
	}
	out := make([]byte, 0, len(rec)+8)
	for i := 0; i < len(rec); {
		r, size := utf8.DecodeRune(rec[i:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, rec[i:i+size]...)
		}
		i += size
	}
	return string(out), true
}
