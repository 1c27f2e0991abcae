// Package spill keeps a bundle's bulk records on local disk, by partition, so that only
// references to them travel through the runner. The embedded Prism runner holds a
// shuffle's whole volume in memory several times over (the persisted bundle output, one
// joined copy as the next stage's input, the gRPC message, the SDK's read buffer and the
// decoded values); for the largest shuffle of the job that, not the data, is what limits
// the corpus one machine can take. A record written here costs its bytes on disk once,
// and the reader holds one partition at a time.
//
// A Writer puts all its partitions in one file, a buffer at a time, and gives each
// partition a reference: the file and the extents of it that hold the partition's
// records: one file per partition would cost a file creation and a removal per
// partition and bundle.
//
// Spilling is only correct when every worker sees the same local disk: the embedded
// runner and LOOPBACK workers, which run in the launching process.
package spill

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// flushBytes is how much a partition gathers in memory before it is appended to the
// file. Small, since every partition of a bundle holds one such buffer, and a fresh
// one's page faults cost more than the extra pwrites of small flushes.
const flushBytes = 64 << 10

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

// flushers is how many goroutines write full buffers to the file, and queued how many
// full buffers may wait for them: memory is bounded by partitions × flushBytes (Extend's
// buffers; Append's records may pass it by one record) + (queued + flushers) ×
// flushBytes.
const (
	flushers = 2
	queued   = 16
)

// Writer appends length-framed records by partition to one file. The file is named by a
// random prefix, so the writers of concurrent bundles and of a retried bundle never
// share one: a reader is given only the references of bundles that committed.
//
// Full buffers are written by goroutines of the Writer's own, so the caller never waits
// in write(2) unless they fall behind. The caller is the goroutine that feeds a bundle's
// per-core pool, which would run dry while it waited: partitions that fill at one pace
// come due together.
type Writer struct {
	path   string
	file   *os.File       // opened by the first flush
	size   int64          // bytes queued for the file: where the next buffer goes
	parts  []partition    // by partition number: a slice, since every band entry looks its partition up
	queue  chan appendJob // full buffers, for the flushers
	state  *appendState
	closed bool
	stop   runtime.Cleanup
}

// partition is one partition's buffer and where its flushed buffers went.
type partition struct {
	buf     []byte   // being filled: whole records, then any open one
	open    int      // where the open record starts in buf, plus one; 0 when there is none
	extents []extent // in the file, in order; adjacent ones merged
}

// extent is a stretch of the file that holds whole records of one partition.
type extent struct{ off, n int64 }

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

// appendState is what the flushers share with the Writer; it is not part of the Writer,
// so that they do not keep a dropped Writer reachable.
type appendState struct {
	done sync.WaitGroup
	err  atomic.Pointer[error] // the first failure
}

func (st *appendState) fail(err error) { st.err.CompareAndSwap(nil, &err) }

// appendJob is one full buffer for the file at offset off.
type appendJob struct {
	f   *os.File
	off int64
	buf []byte
}

// NewWriter returns a writer of a file in dir, which it creates when missing.
func NewWriter(dir string) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	w := &Writer{path: filepath.Join(dir, hex.EncodeToString(b[:])+".spill"),
		queue: make(chan appendJob, queued), state: &appendState{}}
	for range flushers {
		w.state.done.Add(1)
		go appendAll(w.queue, w.state)
	}
	// The goroutines hold the channels, not w: a Writer dropped on an error path without
	// Close becomes unreachable, and its cleanup ends them.
	w.stop = runtime.AddCleanup(w, func(q chan appendJob) { close(q) }, w.queue)
	return w, nil
}

// written counts the bytes every Writer of the process has written (Written).
var written atomic.Int64

// Written is the number of bytes spilled to files by this process so far: the driver
// reports the difference over a run (stats.json), which holds when the workers run in
// this process, the only case in which anything spills.
func Written() int64 { return written.Load() }

// appendAll writes each job's buffer at its offset until the queue is closed; after the
// first failure it only gives the buffers back.
func appendAll(q <-chan appendJob, st *appendState) {
	defer st.done.Done()
	for j := range q {
		if st.err.Load() == nil {
			n, err := j.f.WriteAt(j.buf, j.off)
			written.Add(int64(n))
			if err != nil {
				st.fail(fmt.Errorf("spill: %w", err)) // an *os.PathError: it names the file
			}
		}
		putBuffer(j.buf)
	}
}

// usable is the error that stops the Writer's use: Close was called, or a write failed
// (the records since may be lost; Close reports it too).
func (w *Writer) usable() error {
	if w.closed {
		return errors.New("spill: write after close")
	}
	if err := w.state.err.Load(); err != nil {
		return *err
	}
	return nil
}

// Append adds one record to partition p (closing p's open record first).
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

// buffer is an empty buffer of flushBytes for a partition, a written one when the
// process has one. A partition's buffer is never grown by doubling, which would allocate
// twice and copy once the whole volume in fresh memory.
func (w *Writer) buffer() []byte { return getBuffer() }

// flush queues partition p's buffer, which holds only whole records, for the file. A
// partition that goes on (refill) gets a new buffer right away: it filled one and will
// fill the next. A failure to open the file is the Writer's first error.
func (w *Writer) flush(p int, refill bool) {
	pt := w.part(p)
	b := pt.buf
	pt.buf = nil
	if len(b) == 0 {
		return
	}
	if w.file == nil {
		if w.state.err.Load() != nil {
			return // the open failed before: the error is the Writer's
		}
		f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			w.state.fail(fmt.Errorf("spill: %w", err))
			return
		}
		w.file = f
	}
	n := int64(len(b))
	if k := len(pt.extents) - 1; k >= 0 && pt.extents[k].off+pt.extents[k].n == w.size {
		pt.extents[k].n += n
	} else {
		pt.extents = append(pt.extents, extent{w.size, n})
	}
	w.queue <- appendJob{w.file, w.size, b}
	w.size += n
	if refill {
		pt.buf = w.buffer()
	}
}

// Close writes what is still buffered, waits until the file is complete and returns the
// reference (for Read) of each partition that got a record. The writer must not be used
// afterwards.
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
	close(w.queue)
	w.state.done.Wait()
	if w.file != nil {
		if err := w.file.Close(); err != nil {
			w.state.fail(fmt.Errorf("spill: %w", err))
		}
	}
	if err := w.state.err.Load(); err != nil {
		return nil, *err
	}
	refs := map[int]string{}
	for p, pt := range w.parts {
		if len(pt.extents) > 0 {
			refs[p] = formatRef(w.path, pt.extents)
		}
	}
	w.parts = nil
	return refs, nil
}

// A reference is the file's path, '@', and its extents as OFFSET+LENGTH, comma-separated:
// a string, so that it travels through the runner as one.
func formatRef(path string, extents []extent) string {
	b := append([]byte(path), '@')
	for i, e := range extents {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, e.off, 10)
		b = append(b, '+')
		b = strconv.AppendInt(b, e.n, 10)
	}
	return string(b)
}

func parseRef(ref string) (path string, extents []extent, err error) {
	at := strings.LastIndexByte(ref, '@')
	if at < 0 {
		return "", nil, fmt.Errorf("spill: %q is not a spill reference", ref)
	}
	path = ref[:at]
	for s := range strings.SplitSeq(ref[at+1:], ",") {
		off, n, ok := strings.Cut(s, "+")
		e := extent{}
		var err1, err2 error
		e.off, err1 = strconv.ParseInt(off, 10, 64)
		e.n, err2 = strconv.ParseInt(n, 10, 64)
		if !ok || err1 != nil || err2 != nil || e.off < 0 || e.n < 0 {
			return "", nil, fmt.Errorf("spill: %q is not a spill reference (extent %q)", ref, s)
		}
		extents = append(extents, e)
	}
	return path, extents, nil
}

// File is the file a reference points into (for messages).
func File(ref string) string {
	if at := strings.LastIndexByte(ref, '@'); at >= 0 {
		return ref[:at]
	}
	return ref
}

// Size is the number of bytes a reference points at; 0 for a malformed one (Read
// reports it).
func Size(ref string) int64 {
	_, extents, err := parseRef(ref)
	if err != nil {
		return 0
	}
	n := int64(0)
	for _, e := range extents {
		n += e.n
	}
	return n
}
