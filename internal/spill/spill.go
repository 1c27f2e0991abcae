// Package spill keeps a bundle's bulk records on local disk, by partition, so that only
// the files' names travel through the runner. The embedded Prism runner holds a
// shuffle's whole volume in memory several times over (the persisted bundle output, one
// joined copy as the next stage's input, the gRPC message, the SDK's read buffer and the
// decoded values); for the largest shuffle of the job that, not the data, is what limits
// the corpus one machine can take. A record written here costs its bytes on disk once,
// and the reader holds one partition at a time.
//
// Spilling is only correct when every worker sees the same local disk: the embedded
// runner and LOOPBACK workers, which run in the launching process.
package spill

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// flushBytes is how much a partition gathers in memory before it is appended to its
// file: a file is opened once per flushBytes written, never held open (a bundle may feed
// thousands of partitions).
const flushBytes = 256 << 10

// recordBytes is the size at which Extend closes a partition's record: records are the
// unit a reader decodes at a time.
const recordBytes = 64 << 10

// itemRoom is the free space Extend makes before each item: items are small (a band
// entry is about 40 bytes), and a larger one only costs append's own growth. A buffer
// with less than itemRoom left before flushBytes is full.
const itemRoom = 256

// headerBytes frame a record: its length, little-endian. A fixed width lets a record be
// built in place (Extend) and its length written once it is complete.
const headerBytes = 4

// flushers is how many goroutines append full buffers to their files, and queued how
// many full buffers each may have waiting: memory is bounded by partitions × flushBytes
// (Extend's buffers; Append's records may pass it by one record) + flushers × (queued +
// 1) × flushBytes.
const (
	flushers = 2
	queued   = 8
)

// Writer appends length-framed records to one file per partition. Its files are named by
// a random prefix, so the writers of concurrent bundles and of a retried bundle never
// share a file: a reader is given only the files of bundles that committed.
//
// Full buffers are appended to their files by goroutines of the Writer's own, so the
// caller never waits in open(2) or write(2) unless they fall behind. The caller is the
// goroutine that feeds a bundle's per-core pool: while it waited there, the pool ran dry
// (at 1M documents the band entries' 1,024 partitions fill at one pace and came due
// together, leaving a core idle for a few tenths of a second each time).
type Writer struct {
	dir    string
	prefix string
	parts  []partition      // by partition number: a slice, since every band entry looks its partition up
	queues []chan appendJob // a partition's buffers go to queue p % flushers, in order
	free   chan []byte      // written buffers, to be filled again
	state  *appendState
	closed bool
	stop   runtime.Cleanup
}

// partition is one partition's buffer and file.
type partition struct {
	buf  []byte // being filled: whole records, then any open one
	open int    // where the open record starts in buf, plus one; 0 when there is none
	path string // the file, once a buffer went to it
}

// part returns partition p's state, making room for it.
func (w *Writer) part(p int) *partition {
	if p >= len(w.parts) {
		if p < 0 {
			panic(fmt.Sprintf("spill: partition %d", p))
		}
		w.parts = append(w.parts, make([]partition, p+1-len(w.parts))...)
	}
	return &w.parts[p]
}

// appendState is what the appending goroutines share with the Writer; it is not part of
// the Writer, so that they do not keep a dropped Writer reachable.
type appendState struct {
	done sync.WaitGroup
	err  atomic.Pointer[error] // the first failed append
}

// appendJob is one full buffer for the end of the file at path.
type appendJob struct {
	path string
	buf  []byte
}

// NewWriter returns a writer of files in dir, which it creates when missing.
func NewWriter(dir string) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	w := &Writer{dir: dir, prefix: hex.EncodeToString(b[:]),
		queues: make([]chan appendJob, flushers), free: make(chan []byte, flushers*(queued+1)), state: &appendState{}}
	for i := range w.queues {
		w.queues[i] = make(chan appendJob, queued)
		w.state.done.Add(1)
		go appendAll(w.queues[i], w.free, w.state)
	}
	// The goroutines hold the channels, not w: a Writer dropped on an error path without
	// Close becomes unreachable, and its cleanup ends them.
	w.stop = runtime.AddCleanup(w, closeAll, w.queues)
	return w, nil
}

func closeAll(queues []chan appendJob) {
	for _, q := range queues {
		close(q)
	}
}

// appendAll appends each job's buffer to its file until the queue is closed; after the
// first failure it only records it and frees the buffers.
func appendAll(q <-chan appendJob, free chan<- []byte, st *appendState) {
	defer st.done.Done()
	for j := range q {
		if st.err.Load() == nil {
			if err := appendFile(j.path, j.buf); err != nil {
				st.err.CompareAndSwap(nil, &err)
			}
		}
		select {
		case free <- j.buf[:0]:
		default:
		}
	}
}

func appendFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	if err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("spill: %w", err) // an *os.PathError: it names the file
	}
	return nil
}

// usable is the error that stops the Writer's use: Close was called, or an append
// failed (the records since may be lost; Close reports it too).
func (w *Writer) usable() error {
	if w.closed {
		return errors.New("spill: write after close")
	}
	if err := w.state.err.Load(); err != nil {
		return *err
	}
	return nil
}

// Append adds one record to partition p's file (closing p's open record first).
func (w *Writer) Append(p int, rec []byte) error {
	if err := w.usable(); err != nil {
		return err
	}
	w.end(p)
	pt := w.part(p)
	b := pt.buf
	if b == nil {
		b = w.buffer()
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(rec)))
	pt.buf = append(b, rec...)
	if len(pt.buf) >= flushBytes {
		w.flush(p, true)
	}
	return nil
}

// Extend appends to partition p's open record what add appends to the slice it is given,
// opening a record when p has none. A record ends once it holds recordBytes, and at the
// next Append or Close: when add appends whole items, every record holds whole items.
// Building records in place spares the caller a batch of its own and a copy.
func (w *Writer) Extend(p int, add func([]byte) []byte) error {
	if err := w.usable(); err != nil {
		return err
	}
	pt := w.part(p)
	b := pt.buf
	if b == nil {
		b = w.buffer()
	}
	if pt.open == 0 {
		pt.open = len(b) + 1
		b = append(b, make([]byte, headerBytes)...)
	}
	start := pt.open - 1
	b = add(b)
	pt.buf = b
	if full := len(b)+itemRoom > flushBytes; full || len(b)-start-headerBytes >= recordBytes {
		w.end(p)
		if full {
			w.flush(p, true)
		}
	}
	return nil
}

// end closes partition p's open record, if any, by writing its length.
func (w *Writer) end(p int) {
	pt := w.part(p)
	if pt.open == 0 {
		return
	}
	start := pt.open - 1
	binary.LittleEndian.PutUint32(pt.buf[start:], uint32(len(pt.buf)-start-headerBytes))
	pt.open = 0
}

// buffer is an empty buffer of flushBytes for a partition: a written one when there is
// one. A partition's buffer is never grown by doubling: at 100k documents the doubling
// of 256 partitions' first buffers allocated twice and copied once the band entries'
// volume, in fresh memory: 8% of the job's CPU. The pages of a buffer made from fresh
// memory are only touched as it fills, so a partition with little to write costs
// little more than its bytes.
func (w *Writer) buffer() []byte {
	select {
	case b := <-w.free:
		return b
	default:
		return make([]byte, 0, flushBytes)
	}
}

// flush queues partition p's buffer, which holds only whole records, for its file. A
// partition that goes on (refill) gets a new buffer right away: it filled one and will
// fill the next.
func (w *Writer) flush(p int, refill bool) {
	pt := w.part(p)
	b := pt.buf
	pt.buf = nil
	if len(b) == 0 {
		return
	}
	if pt.path == "" {
		pt.path = filepath.Join(w.dir, fmt.Sprintf("%s-%d.spill", w.prefix, p))
	}
	w.queues[p%len(w.queues)] <- appendJob{pt.path, b}
	if refill {
		pt.buf = w.buffer()
	}
}

// Close writes what is still buffered, waits until every file is complete and returns
// the file of each partition that got a record. The writer must not be used afterwards.
func (w *Writer) Close() (map[int]string, error) {
	if w.closed {
		return nil, errors.New("spill: close after close")
	}
	for p := range w.parts {
		w.end(p)
		w.flush(p, false)
	}
	w.closed = true
	w.stop.Stop()
	closeAll(w.queues)
	w.state.done.Wait()
	paths := map[int]string{}
	for p, pt := range w.parts {
		if pt.path != "" {
			paths[p] = pt.path
		}
	}
	w.parts = nil
	if err := w.state.err.Load(); err != nil {
		return nil, *err
	}
	return paths, nil
}

// readers hold the read buffers: a job reads one file per partition and bundle, most of
// them far smaller than a buffer, so a buffer of their own each would make the reads
// mostly allocation.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, flushBytes) }}

// Read calls fn with every record of the file at path, in the order they were appended.
// The slice passed to fn is only valid during the call.
func Read(path string, fn func(rec []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	defer f.Close()
	r := readers.Get().(*bufio.Reader)
	r.Reset(f)
	defer func() {
		r.Reset(nil) // drop the file, keep the buffer
		readers.Put(r)
	}()
	var rec []byte
	var header [headerBytes]byte
	for n := 0; ; n++ {
		if _, err := io.ReadFull(r, header[:]); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("spill: read %s, record %d: %w", path, n+1, err)
		}
		size := binary.LittleEndian.Uint32(header[:])
		if cap(rec) < int(size) {
			rec = make([]byte, size)
		}
		rec = rec[:size]
		if _, err := io.ReadFull(r, rec); err != nil {
			return fmt.Errorf("spill: read %s, record %d: %w (the file is shorter than its records say)", path, n+1, err)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}
