package spill

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// buffers recycles flushBytes buffers across Writers and readers: a job writes and
// reads one buffer per partition and bundle, and a buffer made afresh is zeroed and
// faulted in, which costs more than the records that go through it.
var buffers = sync.Pool{New: func() any { return new([flushBytes]byte) }}

func getBuffer() []byte { return buffers.Get().(*[flushBytes]byte)[:0] }

// putBuffer gives b back for reuse, unless it grew past flushBytes (Append of a large
// record). b must not be used afterwards.
func putBuffer(b []byte) {
	if cap(b) == flushBytes {
		buffers.Put((*[flushBytes]byte)(b[:flushBytes]))
	}
}

// readers hold the read buffers of extents larger than a buffer, which are read through
// one in pieces.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, flushBytes) }}

// keepOpen is how many spill files stay open for readers when none is reading them: a
// stage reads and releases one reference per partition from each bundle's file, so
// without them each reference would cost two opens and two closes.
const keepOpen = 64

// openFile is a spill file opened for reading, shared by the readers of its references
// and by Release.
type openFile struct {
	path  string
	f     *os.File
	users int
}

// opened holds the open spill files, the least recently used first.
var opened struct {
	sync.Mutex
	files []*openFile
}

// acquire returns path opened for reading, and for writing where it may be (Release
// punches holes through the same descriptor); release it when done.
func acquire(path string) (*openFile, error) {
	if o := reuse(path); o != nil {
		return o, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		f, err = os.Open(path)
	}
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	opened.Lock()
	defer opened.Unlock()
	for _, o := range opened.files {
		if o.path == path { // opened meanwhile by another reader
			f.Close()
			o.users++
			return o, nil
		}
	}
	o := &openFile{path: path, f: f, users: 1}
	opened.files = append(opened.files, o)
	trim(keepOpen)
	return o, nil
}

// reuse returns path's open file, if there is one, as the most recently used.
func reuse(path string) *openFile {
	opened.Lock()
	defer opened.Unlock()
	for i, o := range opened.files {
		if o.path == path {
			o.users++
			copy(opened.files[i:], opened.files[i+1:])
			opened.files[len(opened.files)-1] = o
			return o
		}
	}
	return nil
}

func (o *openFile) release() {
	opened.Lock()
	defer opened.Unlock()
	o.users--
	trim(keepOpen)
}

// trim closes the least recently used files nobody reads until at most keep are open
// or every open one is being read. The caller holds opened's lock.
func trim(keep int) {
	files := opened.files
	for i := 0; len(files) > keep && i < len(files); {
		if files[i].users > 0 {
			i++
			continue
		}
		files[i].f.Close()
		files = append(files[:i], files[i+1:]...)
	}
	clear(opened.files[len(files):])
	opened.files = files
}

// CloseFiles closes the spill files kept open for readers that no reader is using: a run
// calls it at its end, so that the files of its removed spill directory do not hold
// their disk space until the process exits.
func CloseFiles() {
	opened.Lock()
	defer opened.Unlock()
	trim(0)
}

// Read calls fn with every record a reference (from Close) points at, in the order they
// were added. The slice passed to fn is only valid during the call.
func Read(ref string, fn func(rec []byte) error) error {
	return Scan(ref, func(rec []byte, _ int64) error { return fn(rec) })
}

// Scan is Read that also tells fn where the record's bytes start in the reference's
// file (File), so that a reader can index records and read parts of them back later
// (os.File.ReadAt) instead of holding them.
func Scan(ref string, fn func(rec []byte, off int64) error) error {
	path, extents, err := parseRef(ref)
	if err != nil {
		return err
	}
	o, err := acquire(path)
	if err != nil {
		return err
	}
	defer o.release()
	sc := scanner{path: path, fn: fn}
	for _, e := range extents {
		if e.n <= flushBytes {
			err = sc.small(o.f, e)
		} else {
			err = sc.large(o.f, e)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// scanner reads the records of a reference's extents, numbering them for errors.
type scanner struct {
	path string
	fn   func(rec []byte, off int64) error
	n    int // records read so far
	rec  []byte
}

// fail is err in reading the current record.
func (sc *scanner) fail(err error) error {
	return fmt.Errorf("spill: read %s, record %d: %w", sc.path, sc.n+1, err)
}

// pastEnd is the error of a record whose length runs past its extent.
func (sc *scanner) pastEnd(size, left int64) error {
	return fmt.Errorf("spill: read %s, record %d: %d bytes, past the end of its extent (%d left): the file is damaged", sc.path, sc.n+1, size, left)
}

// small reads an extent of at most a buffer's size in one read and passes its records
// from the buffer.
func (sc *scanner) small(f *os.File, e extent) error {
	buf := getBuffer()
	defer putBuffer(buf)
	n, err := f.ReadAt(buf[:e.n], e.off)
	if err != nil && err != io.EOF {
		return sc.fail(err)
	}
	buf = buf[:n]
	// cut is the error of a file that ends inside the extent (ReadAt's io.EOF).
	cut := func() error { return sc.fail(shortened(io.ErrUnexpectedEOF)) }
	for at := 0; at < len(buf); sc.n++ {
		if len(buf)-at < headerBytes {
			return cut()
		}
		size := int(binary.LittleEndian.Uint32(buf[at:]))
		at += headerBytes
		if size > len(buf)-at {
			if int64(n) < e.n {
				return cut()
			}
			return sc.pastEnd(int64(size), int64(len(buf)-at))
		}
		if err := sc.fn(buf[at:at+size:at+size], e.off+int64(at)); err != nil {
			return err
		}
		at += size
	}
	if int64(n) < e.n {
		return cut()
	}
	return nil
}

// large reads an extent through a buffered reader, a record at a time.
func (sc *scanner) large(f *os.File, e extent) error {
	r := readers.Get().(*bufio.Reader)
	defer func() {
		r.Reset(nil) // drop the file, keep the buffer
		readers.Put(r)
	}()
	r.Reset(io.NewSectionReader(f, e.off, e.n))
	var header [headerBytes]byte
	for left := e.n; ; sc.n++ {
		_, err := io.ReadFull(r, header[:])
		if err == io.EOF && left == 0 {
			return nil
		}
		if err != nil {
			// io.EOF with bytes left: the file ends inside the extent, at a record's end.
			return sc.fail(shortened(err))
		}
		size := int64(binary.LittleEndian.Uint32(header[:]))
		if left -= headerBytes; size > left {
			return sc.pastEnd(size, left)
		}
		left -= size
		if int64(cap(sc.rec)) < size {
			sc.rec = make([]byte, size)
		}
		rec := sc.rec[:size]
		if _, err := io.ReadFull(r, rec); err != nil {
			return sc.fail(shortened(err))
		}
		if err := sc.fn(rec, e.off+e.n-left-size); err != nil {
			return err
		}
	}
}

// shortened says what an unexpected end of an extent means.
func shortened(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%w (the file is shorter than its records say)", err)
	}
	return err
}
